# Only these attributes are managed; the other contact details keep their live values.
resource "mgmt_account_contact" "this" {
  email   = "billing@example.com"
  company = "Example Ltd"
  country = "US"
  state   = "PA"
  zip     = "19106"
}
