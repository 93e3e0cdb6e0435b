data "mgmt_child_accounts" "us" {
  filter {
    name   = "country"
    values = ["US"]
  }
  order_by = "company"
}

output "euuids" {
  value = data.mgmt_child_accounts.us.child_accounts[*].euuid
}
