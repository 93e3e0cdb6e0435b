# Regions that offer Kubernetes to this account.
data "mgmt_availabilities" "k8s" {
  filter {
    name   = "available"
    values = ["Kubernetes"]
  }
}

output "regions" {
  value = data.mgmt_availabilities.k8s.availabilities[*].region
}
