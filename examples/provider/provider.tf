terraform {
  required_providers {
    mgmt = { source = "registry.mgmt.test/mgmt/mgmt" }
  }
}

# url and token fall back to MGMT_URL and MGMT_TOKEN, which keeps the token out of the code.
provider "mgmt" {
  request_timeout = 30
  max_retries     = 5
}
