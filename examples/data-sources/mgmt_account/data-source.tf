data "mgmt_account" "this" {}

output "balance_uninvoiced" {
  value = data.mgmt_account.this.balance_uninvoiced
}
