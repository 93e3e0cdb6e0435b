/** What single-object and list data sources share: permission errors that name the scope, entity refs. */
import { ApiError } from "../../client";
import { object, string, type AttributeSpec } from "../framework/attributes";
import type { ObjectValue } from "../framework/value";
import { toRfc3339 } from "../timestamps";

/**
 * Runs a read; a 403 becomes an error that says which OAuth scope the operation accepts (the
 * contract's Scope column), so the user knows what to give the token. The API's own reason is
 * kept: a restricted user can also be refused for a missing grant. `null`: any valid token may call.
 */
export async function withScope<T>(scope: string | null, read: () => Promise<T>): Promise<T> {
  if (scope === null) return read();
  try {
    return await read();
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) {
      throw new Error(
        `${err.message}. This operation accepts OAuth scope "${err.acceptedScopes ?? scope}" (or its read_write form, or "*"): give the token that scope. ` +
          `If it already has it, the user is restricted and lacks the grant (see data.mgmt_grants).`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** A nullable API timestamp in RFC 3339. */
export const rfc3339OrNull = (v: string | null | undefined): string | null => (v === null || v === undefined ? null : toRfc3339(v));

/** The `{id, label, type, url}` reference events, maintenance and notifications carry. */
export const entityRefAttribute = (description: string): AttributeSpec =>
  object("computed", description, {
    id: string("computed", "The entity's id, as a string (numeric for most entities, a euuid or client id for others)."),
    label: string("computed", "The entity's label when the reference was made."),
    type: string("computed", "The entity's type, e.g. compute, ssh_key, oauth_client, account."),
    url: string("computed", "API path of the entity."),
  });

export const entityRef = (e: { id: number | string; label: string; type: string; url: string } | null): ObjectValue | null =>
  e === null ? null : { id: String(e.id), label: e.label, type: e.type, url: e.url };

/** A whole-number id in a data source argument, or why not. */
export function positiveIdReason(v: number): string | undefined {
  return Number.isSafeInteger(Number(v)) && Number(v) >= 1 ? undefined : `must be a positive whole number; got ${v}`;
}
