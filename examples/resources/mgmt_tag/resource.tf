resource "mgmt_tag" "production" {
  label    = "production"
  computes = [123, 456]
  domains  = [789]
}
