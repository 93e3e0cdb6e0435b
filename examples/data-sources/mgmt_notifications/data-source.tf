data "mgmt_notifications" "serious" {
  filter {
    name   = "severity"
    values = ["major", "critical"]
  }
}

output "messages" {
  value = data.mgmt_notifications.serious.notifications[*].message
}
