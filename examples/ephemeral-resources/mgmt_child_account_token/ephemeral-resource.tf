# A child account's token for this run only: never in state or plan, revoked when the run ends
# (Terraform 1.10+, OpenTofu 1.11+). An aliased provider uses it to act inside the child account.
# The API cannot extend the token's 15 minutes: for longer applies, and on older engines, use the
# provider's child_account block instead. The cdktf bindings have no class for ephemeral resources
# (the generator writes none).
ephemeral "mgmt_child_account_token" "acme" {
  euuid = "9B2C7E1A-5D3F-4E8B-A1C2-3D4E5F60718A"
}

provider "mgmt" {
  alias = "acme"
  token = ephemeral.mgmt_child_account_token.acme.token
}

resource "mgmt_tag" "acme_production" {
  provider = mgmt.acme
  label    = "production"
}
