data "mgmt_tag" "production" {
  label = "production"
}

output "production_instances" {
  value = data.mgmt_tag.production.computes[*].label
}
