/** `GET /profile/grants`: what a restricted user may do (204, no body, for an unrestricted user). */
import { z } from "zod";
import { GLOBAL_GRANT_FLAGS, GRANT_ENTITY_TYPES, GRANT_PERMISSIONS, type GlobalGrantFlag, type GrantEntityType } from "./enums";

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
