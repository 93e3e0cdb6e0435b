data "mgmt_profile_logins" "latest" {
  order_by = "datetime"
  order    = "desc"
  limit    = 5
}

output "last_login" {
  value = try(data.mgmt_profile_logins.latest.logins[0].datetime, null)
}
