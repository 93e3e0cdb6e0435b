data "mgmt_notifications" "serious" {
  filter = [
    { name = "severity", values = ["major", "critical"], match_by = "exact" },
  ]
}

output "messages" {
  value = data.mgmt_notifications.serious.notifications[*].message
}
