/** `GET /profile/grants`: what a restricted user may do (204, no body, for an unrestricted user). */
import { z } from "zod";

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
export type GrantEntityType = (typeof GRANT_ENTITY_TYPES)[number];

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
export type GlobalGrantFlag = (typeof GLOBAL_GRANT_FLAGS)[number];

/** The values the service gives; the complete set is "not shown" (null: no access). */
export const GRANT_PERMISSIONS = ["read_only", "read_write"] as const;
export const GrantPermission = z.enum(GRANT_PERMISSIONS).nullable();

export const EntityGrant = z.object({ id: z.number().int(), label: z.string(), permissions: GrantPermission });
export type EntityGrant = z.infer<typeof EntityGrant>;

export const GlobalGrants = z.object({
  account_access: GrantPermission,
  ...(Object.fromEntries(GLOBAL_GRANT_FLAGS.map((f) => [f, z.boolean()])) as Record<GlobalGrantFlag, z.ZodBoolean>),
});
export type GlobalGrants = z.infer<typeof GlobalGrants>;

export const GrantsResponse = z.object({
  global: GlobalGrants,
  ...(Object.fromEntries(GRANT_ENTITY_TYPES.map((t) => [t, z.array(EntityGrant)])) as Record<GrantEntityType, z.ZodArray<typeof EntityGrant>>),
});
export type GrantsResponse = z.infer<typeof GrantsResponse>;

/** A restricted user with no grants set: nothing. */
export function emptyGrants(): GrantsResponse {
  return {
    global: { account_access: null, ...(Object.fromEntries(GLOBAL_GRANT_FLAGS.map((f) => [f, false])) as Record<GlobalGrantFlag, boolean>) },
    ...(Object.fromEntries(GRANT_ENTITY_TYPES.map((t) => [t, []])) as unknown as Record<GrantEntityType, EntityGrant[]>),
  };
}
