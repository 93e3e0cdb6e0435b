# Only these attributes are managed; the other contact details keep their live values.
# company may be set only on an account without child accounts: the API refuses (403) to change the
# company of a parent account, whose child accounts' proxy users are named after it. Setting it to the
# value the account already has is accepted.
resource "mgmt_account_contact" "this" {
  email   = "billing@example.com"
  country = "US"
  state   = "PA"
  zip     = "19106"
}
