data "mgmt_payment_methods" "default" {
  filter {
    name   = "is_default"
    values = ["true"]
  }
}

output "card" {
  value = try("${data.mgmt_payment_methods.default.payment_methods[0].data.card_type} ${data.mgmt_payment_methods.default.payment_methods[0].data.last_four}", null)
}
