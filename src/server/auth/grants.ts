/**
 * Grant checks shared by the areas of the account, OAuth clients, tags, events and entity
 * transfers: who may do what beyond their token's scopes. An unrestricted user may do
 * everything; a restricted user needs the grant the operation names. The rule belongs to no one
 * area, so it lives below them all and names only the two reads it makes (the profile area's
 * `users` and `grants` repositories are these).
 */
import { GrantsResponse, emptyGrants } from "../../contract";
import type { Actor } from "../domain/context";
import { forbidden, type DomainError } from "../domain/errors";
import type { UserRecord } from "../domain/records";

/** What reading grants takes: the user as stored now and their grants as stored JSON text. */
export interface GrantRepos {
  readonly users: { get(id: number): Promise<UserRecord | undefined> };
  readonly grants: {
    get(userId: number): Promise<string | undefined>;
    /** Stays the same while no user's grants and no user's `restricted` can change (see `Handle.tablesMark`). */
    mark(): string | undefined;
  };
}

/** Upstream's reason for a restricted user on an operation their grants do not cover. */
export const NOT_AUTHORIZED_REASON = "Unauthorized";

/** The answer to a restricted user on an operation their grants do not cover. */
export const unauthorized = (): DomainError => forbidden(null, NOT_AUTHORIZED_REASON);

/** The user's grants as stored now, or null for an unrestricted user (who needs none). */
export async function grantsOf(store: GrantRepos, actor: { readonly user: UserRecord }): Promise<GrantsResponse | null> {
  const user = await store.users.get(actor.user.id);
  if (user === undefined || !user.restricted) return null;
  const stored = await store.grants.get(user.id);
  return stored === undefined ? emptyGrants() : GrantsResponse.parse(JSON.parse(stored));
}

/** For operations upstream marks "unrestricted only". */
export async function requireUnrestricted(store: GrantRepos, actor: Actor): Promise<void> {
  if ((await grantsOf(store, actor)) !== null) throw unauthorized();
}

/** A restricted user needs `account_access` of at least `level`. */
export async function requireAccountAccess(store: GrantRepos, actor: Actor, level: "read_only" | "read_write"): Promise<void> {
  const grants = await grantsOf(store, actor);
  if (grants === null) return;
  const held = grants.global.account_access;
  if (held === "read_write" || (held === "read_only" && level === "read_only")) return;
  throw unauthorized();
}
