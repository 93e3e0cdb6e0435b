data "mgmt_oauth_clients" "public" {
  filter {
    name   = "public"
    values = ["true"]
  }
}

output "redirects" {
  value = { for c in data.mgmt_oauth_clients.public.oauth_clients : c.label => c.redirect_uri }
}
