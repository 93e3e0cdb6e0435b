/** What single-object and list data sources share: timestamps, entity refs, id checks. */
import { object, string, type AttributeSpec } from "../framework/attributes";
import type { ObjectValue } from "../framework/value";
import { toRfc3339 } from "../timestamps";

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
