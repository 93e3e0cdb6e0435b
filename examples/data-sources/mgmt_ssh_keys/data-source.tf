# Every key whose label says it belongs to CI.
data "mgmt_ssh_keys" "ci" {
  filter {
    name     = "label"
    values   = ["^ci-", "runner"]
    match_by = "regex"
  }
}

output "ci_key_ids" {
  value = data.mgmt_ssh_keys.ci.ssh_keys[*].id
}
