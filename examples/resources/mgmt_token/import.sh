# A token is imported by its numeric id. Its value cannot be imported: `token` stays null.
terraform import mgmt_token.reporting 12345
