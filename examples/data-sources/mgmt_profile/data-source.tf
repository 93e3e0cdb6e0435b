data "mgmt_profile" "me" {}

output "username" {
  value = data.mgmt_profile.me.username
}
