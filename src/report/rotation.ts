/**
 * A token rotation as the review reads it. The provider plans a token inside its `renew_before`
 * window as an in-place update whose id becomes unknown (a new token, created before the old one
 * is revoked); the report says so, and why now, instead of listing computed values going unknown.
 */
import { formatDay, parseInstant } from "../contract/timestamps";
import type { ResourceChange } from "./plan-model";

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** "expires 2026-12-05, inside renew_before 168h" for a planned rotation; undefined for anything else. */
export function rotationOf(rc: ResourceChange): string | undefined {
  const c = rc.change;
  if (rc.type !== "mgmt_token" || c.actions.length !== 1 || c.actions[0] !== "update") return undefined;
  const before = record(c.before);
  if (record(c.after_unknown)?.id !== true || before === undefined) return undefined;
  const { expiry, renew_before: renewBefore } = before;
  if (typeof expiry !== "string" || typeof renewBefore !== "string") return undefined;
  const at = parseInstant(expiry);
  const day = at === undefined ? expiry : formatDay(at);
  return `expires ${day}, inside renew_before ${renewBefore}`;
}
