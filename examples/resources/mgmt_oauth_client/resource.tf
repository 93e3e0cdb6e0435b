resource "mgmt_oauth_client" "dashboard" {
  label        = "Team dashboard"
  redirect_uri = "https://dashboard.example.com/oauth/callback"
  thumbnail    = filebase64("${path.module}/logo.png")

  # Increment to rotate the secret in place.
  secret_version = 1
}

output "dashboard_client_secret" {
  value     = mgmt_oauth_client.dashboard.secret
  sensitive = true
}
