data "mgmt_trusted_devices" "all" {}

output "browsers" {
  value = data.mgmt_trusted_devices.all.trusted_devices[*].user_agent
}
