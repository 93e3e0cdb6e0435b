data "mgmt_maintenance" "pending" {
  filter {
    name   = "status"
    values = ["pending"]
  }
  order_by = "when"
}

output "next" {
  value = [for m in data.mgmt_maintenance.pending.maintenance : "${m.when} ${m.type} ${m.entity.label}"]
}
