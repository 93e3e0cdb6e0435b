# Failed logins of any user of the account.
data "mgmt_account_logins" "failed" {
  filter {
    name   = "status"
    values = ["failed"]
  }
}

output "from" {
  value = distinct(data.mgmt_account_logins.failed.logins[*].ip)
}
