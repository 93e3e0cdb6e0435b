resource "mgmt_profile_settings" "me" {
  timezone            = "Europe/Berlin"
  email_notifications = true
  lish_auth_method    = "keys_only"
  authorized_keys     = [file("~/.ssh/id_ed25519.pub")]
}
