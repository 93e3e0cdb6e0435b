/** An explicit host, so Terraform (default registry.terraform.io) and OpenTofu (registry.opentofu.org) resolve it alike. */
export const PROVIDER_SOURCE = "registry.mgmt.test/mgmt/mgmt";
export const PROVIDER_VERSION = "0.3.0";
/** The file name the engines look for in a provider package: terraform-provider-<type>. */
export const PROVIDER_EXECUTABLE = "terraform-provider-mgmt";
