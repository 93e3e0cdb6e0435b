# An OAuth client is imported by its client id. Its secret cannot be imported: `secret` stays
# null until `secret_version` is set or changed, which resets it.
terraform import mgmt_oauth_client.dashboard 2737bf16b39ab5d7b4a1
