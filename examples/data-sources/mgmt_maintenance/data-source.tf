data "mgmt_maintenance" "pending" {
  filter = [
    { name = "status", values = ["pending"], match_by = "exact" },
  ]
  order_by = "when"
}

output "next" {
  value = [for m in data.mgmt_maintenance.pending.maintenance : "${m.when} ${m.type} ${m.entity.label}"]
}
