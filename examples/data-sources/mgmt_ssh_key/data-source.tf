data "mgmt_ssh_key" "laptop" {
  label = "laptop"
}

output "fingerprint_source" {
  value = data.mgmt_ssh_key.laptop.ssh_key
}
