# Provider functions need Terraform 1.8+ or OpenTofu 1.7+.
# "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFi+J7lnAxDh3t4k3KqusKAGjPzqfbhqr5Puq9cqf9tb laptop" -> "SHA256:gDaLhkUFyAPjmRPiRrQAUtbbf6nK7SsG/ruKT+7oGUI"
# (to fingerprint your own key: provider::mgmt::ssh_key_fingerprint(file("~/.ssh/id_ed25519.pub")))
output "laptop_fingerprint" {
  value = provider::mgmt::ssh_key_fingerprint("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFi+J7lnAxDh3t4k3KqusKAGjPzqfbhqr5Puq9cqf9tb laptop")
}
