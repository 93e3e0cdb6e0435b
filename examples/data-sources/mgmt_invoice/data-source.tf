data "mgmt_invoice" "one" {
  id = 123
}

output "lines" {
  value = [for item in data.mgmt_invoice.one.items : "${item.label}: ${item.total}"]
}
