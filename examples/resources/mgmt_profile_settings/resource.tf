resource "mgmt_profile_settings" "me" {
  timezone            = "Europe/Berlin"
  email_notifications = true
  lish_auth_method    = "keys_only"
  # Public keys as ssh-keygen writes them; file("~/.ssh/id_ed25519.pub") reads your own.
  authorized_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFi+J7lnAxDh3t4k3KqusKAGjPzqfbhqr5Puq9cqf9tb laptop"]
}
