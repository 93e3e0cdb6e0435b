# A read-only token for a reporting job, rotated by any apply in the last 30 days of its 90.
resource "mgmt_token" "reporting" {
  label        = "reporting"
  scopes       = "account:read_only events:read_only"
  expires_in   = "2160h"
  renew_before = "720h"
}

output "reporting_token" {
  value     = mgmt_token.reporting.token
  sensitive = true
}
