resource "mgmt_ssh_key" "laptop" {
  label = "laptop"
  # A public key as ssh-keygen writes it. To upload your own, read its file instead:
  # ssh_key = file("~/.ssh/id_ed25519.pub")
  ssh_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFi+J7lnAxDh3t4k3KqusKAGjPzqfbhqr5Puq9cqf9tb laptop"
}
