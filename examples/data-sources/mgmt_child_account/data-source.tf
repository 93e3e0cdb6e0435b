data "mgmt_child_account" "one" {
  euuid = "9B2C7E1A-5D3F-4E8B-A1C2-3D4E5F60718A"
}

output "company" {
  value = data.mgmt_child_account.one.company
}
