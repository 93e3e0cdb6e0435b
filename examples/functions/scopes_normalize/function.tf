# "events:read_write events:read_only account:read_only" -> "events:read_write account:read_only"
output "scopes" {
  value = provider::mgmt::scopes_normalize("events:read_write events:read_only account:read_only")
}
