/** An explicit host, so Terraform (default registry.terraform.io) and OpenTofu (registry.opentofu.org) resolve it alike. */
export const PROVIDER_SOURCE = "registry.mgmt.test/mgmt/mgmt";
export const PROVIDER_VERSION = "0.1.0";
