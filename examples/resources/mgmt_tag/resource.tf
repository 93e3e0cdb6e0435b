# Compute instances 1 and 2 and domain 1 are in mgmt serve's default fixtures.
resource "mgmt_tag" "frontend" {
  label    = "frontend"
  computes = [1, 2]
  domains  = [1]
}
