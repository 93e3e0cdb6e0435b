data "mgmt_authorized_apps" "read_write" {
  filter {
    name     = "scopes"
    values   = ["read_write"]
    match_by = "substring"
  }
}

output "apps" {
  value = data.mgmt_authorized_apps.read_write.authorized_apps[*].label
}
