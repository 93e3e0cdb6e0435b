/**
 * The contract's fixed sets of names, as plain arrays: the zod schemas make enums of them, and
 * the provider names them in its schema without loading zod.
 */

/** The `status` of an OAuth client. */
export const OAUTH_CLIENT_STATUSES = ["active", "disabled", "suspended"] as const;

/** `lish_auth_method` of the profile. */
export const LISH_AUTH_METHODS = ["password_keys", "keys_only", "disabled"] as const;

/** The `type` of an object a tag applies to, as `GET /tags/{label}` and the events feed name it. */
export const TAGGED_OBJECT_TYPES = ["compute", "domain", "volume", "nodebalancer"] as const;

/** The contact fields `PUT /account` may change. */
export const ACCOUNT_CONTACT_FIELDS = [
  "address_1",
  "address_2",
  "city",
  "company",
  "country",
  "email",
  "first_name",
  "last_name",
  "phone",
  "state",
  "tax_id",
  "zip",
] as const;
export type AccountContactField = (typeof ACCOUNT_CONTACT_FIELDS)[number];

/** USPS codes: states, DC, territories and the military AA, AE, AP. */
export const US_STATE_CODES = [
  "AL",
  "AK",
  "AZ",
  "AR",
  "CA",
  "CO",
  "CT",
  "DE",
  "DC",
  "FL",
  "GA",
  "HI",
  "ID",
  "IL",
  "IN",
  "IA",
  "KS",
  "KY",
  "LA",
  "ME",
  "MD",
  "MA",
  "MI",
  "MN",
  "MS",
  "MO",
  "MT",
  "NE",
  "NV",
  "NH",
  "NJ",
  "NM",
  "NY",
  "NC",
  "ND",
  "OH",
  "OK",
  "OR",
  "PA",
  "RI",
  "SC",
  "SD",
  "TN",
  "TX",
  "UT",
  "VT",
  "VA",
  "WA",
  "WV",
  "WI",
  "WY",
  "AS",
  "GU",
  "MP",
  "PR",
  "VI",
  "UM",
  "FM",
  "MH",
  "PW",
  "AA",
  "AE",
  "AP",
] as const;
export const CA_PROVINCE_CODES = ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"] as const;

/** `GET /profile/grants`: the entity types a restricted user holds grants on, and the account-wide flags. */
export const GRANT_ENTITY_TYPES = [
  "database",
  "domain",
  "image",
  "compute",
  "loadbalancer",
  "longview",
  "nodebalancer",
  "stackscript",
  "volume",
  "vpc",
] as const;

export const GLOBAL_GRANT_FLAGS = [
  "add_databases",
  "add_domains",
  "add_firewalls",
  "add_images",
  "add_computes",
  "add_loadbalancers",
  "add_longview",
  "add_nodebalancers",
  "add_stackscripts",
  "add_volumes",
  "add_vpcs",
  "cancel_account",
  "child_account_access",
  "longview_subscription",
] as const;

/** The values the service gives; the complete set is "not shown" (null: no access). */
export const GRANT_PERMISSIONS = ["read_only", "read_write"] as const;
