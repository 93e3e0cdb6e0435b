/** `GET /profile/grants`: what a restricted user may do (204, no body, for an unrestricted user). */
import { z } from "zod";
import { GLOBAL_GRANT_FLAGS, GRANT_ENTITY_TYPES, GRANT_PERMISSIONS } from "./enums";
import { recordOf } from "./record-of";

export const GrantPermission = z.enum(GRANT_PERMISSIONS).nullable();

export const EntityGrant = z.object({ id: z.number().int(), label: z.string(), permissions: GrantPermission });
export type EntityGrant = z.infer<typeof EntityGrant>;

export const GlobalGrants = z.object({
  account_access: GrantPermission,
  ...recordOf(GLOBAL_GRANT_FLAGS, () => z.boolean()),
});
export type GlobalGrants = z.infer<typeof GlobalGrants>;

export const GrantsResponse = z.object({
  global: GlobalGrants,
  ...recordOf(GRANT_ENTITY_TYPES, () => z.array(EntityGrant)),
});
export type GrantsResponse = z.infer<typeof GrantsResponse>;

/** A restricted user with no grants set: nothing. */
export function emptyGrants(): GrantsResponse {
  return {
    global: { account_access: null, ...recordOf(GLOBAL_GRANT_FLAGS, () => false) },
    ...recordOf(GRANT_ENTITY_TYPES, (): EntityGrant[] => []),
  };
}
