# Tokens that never expire (values are never read).
data "mgmt_tokens" "all" {}

output "without_expiry" {
  value = [for t in data.mgmt_tokens.all.tokens : t.label if t.expiry == null]
}
