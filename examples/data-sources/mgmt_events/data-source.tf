# The SSH key and token changes of the last day, newest first.
data "mgmt_events" "audit" {
  created_after = timeadd(timestamp(), "-24h")

  filter {
    name   = "action"
    values = ["user_ssh_key_add", "user_ssh_key_delete", "token_create", "token_delete"]
  }
}

output "changes" {
  value = [for e in data.mgmt_events.audit.events : "${e.created} ${e.action} ${e.entity.label} by ${coalesce(e.username, "system")}"]
}
