data "mgmt_grants" "mine" {}

output "may_add_volumes" {
  value = !data.mgmt_grants.mine.restricted || try(data.mgmt_grants.mine.global.add_volumes, false)
}
