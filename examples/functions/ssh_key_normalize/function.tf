# The same key with another comment or spacing normalizes to the same text:
# "ssh-ed25519  AAAAC3NzaC1lZDI1NTE5AAAAIFi+J7lnAxDh3t4k3KqusKAGjPzqfbhqr5Puq9cqf9tb  laptop (work)" -> "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFi+J7lnAxDh3t4k3KqusKAGjPzqfbhqr5Puq9cqf9tb"
# (your own key: provider::mgmt::ssh_key_normalize(file("~/.ssh/id_ed25519.pub")))
locals {
  laptop_key = provider::mgmt::ssh_key_normalize("ssh-ed25519  AAAAC3NzaC1lZDI1NTE5AAAAIFi+J7lnAxDh3t4k3KqusKAGjPzqfbhqr5Puq9cqf9tb  laptop (work)")
}

check "laptop_key_registered" {
  assert {
    condition     = contains([for k in data.mgmt_ssh_keys.all.ssh_keys : provider::mgmt::ssh_key_normalize(k.ssh_key)], local.laptop_key)
    error_message = "The laptop's key is not on the profile."
  }
}

data "mgmt_ssh_keys" "all" {}
