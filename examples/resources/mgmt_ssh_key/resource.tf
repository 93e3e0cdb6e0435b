resource "mgmt_ssh_key" "laptop" {
  label   = "laptop"
  ssh_key = file("~/.ssh/id_ed25519.pub")
}
