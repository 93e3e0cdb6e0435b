data "mgmt_child_accounts" "us" {
  filter = [
    { name = "country", values = ["US"], match_by = "exact" },
  ]
  order_by = "company"
}

output "euuids" {
  value = data.mgmt_child_accounts.us.child_accounts[*].euuid
}
