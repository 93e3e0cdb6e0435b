data "mgmt_event" "one" {
  id = 123
}

output "what" {
  value = "${data.mgmt_event.one.action} on ${data.mgmt_event.one.entity.label}"
}
