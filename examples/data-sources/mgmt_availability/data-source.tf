data "mgmt_availability" "us_east" {
  region = "us-east"
}

output "can_use_volumes" {
  value = contains(data.mgmt_availability.us_east.available, "Block Storage")
}
