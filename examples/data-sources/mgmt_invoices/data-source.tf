# The last three invoices with their items.
data "mgmt_invoices" "recent" {
  order_by      = "date"
  order         = "desc"
  limit         = 3
  include_items = true
}

output "totals" {
  value = { for i in data.mgmt_invoices.recent.invoices : i.date => i.total }
}
