# There is one account: any id works; "account" by convention.
terraform import mgmt_account_contact.this account
