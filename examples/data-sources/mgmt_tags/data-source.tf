data "mgmt_tags" "env" {
  filter {
    name     = "label"
    values   = ["env-"]
    match_by = "substring"
  }
}

output "labels" {
  value = data.mgmt_tags.env.tags[*].label
}
