# Provider functions need Terraform 1.8+ or OpenTofu 1.7+.
output "laptop_fingerprint" {
  value = provider::mgmt::ssh_key_fingerprint(file("~/.ssh/id_ed25519.pub"))
}
