/**
 * The token the CI itself acts with, as the drift report warns about it: inside the renewal window
 * of the stack that manages it (its `renew_before`), or, unmanaged here, within a fixed notice of its
 * expiry. Pure: the token's listing (id, label, expiry; never its value) and "now" come in as data.
 * Said before it happens, so that the CI's secret is replaced before a run fails with a 401.
 */

import { parseInstant } from "../contract/timestamps";

/** How long before expiry an unmanaged CI token is called close to it: two weekly drift runs' notice. */
export const CI_TOKEN_NOTICE_MS = 14 * 24 * 3600_000;

export interface ActingToken {
  readonly id: number;
  readonly label: string;
  /** The API's timestamp (UTC, no zone), or null: it never expires. */
  readonly expiry: string | null;
}

export interface CiTokenStatus {
  readonly id: number;
  readonly label: string;
  readonly expiry: string | null;
  /**
   * `renewal`: inside the managing stack's renew_before (the next apply rotates it, and the CI's
   * secret then holds a revoked value); `expiring`: within the notice of its expiry; `expired`:
   * past it; `ok`: none of these.
   */
  readonly state: "ok" | "renewal" | "expiring" | "expired";
  /** The address of the mgmt_token in this stack's state that is this token, if any. */
  readonly managedAs?: string;
  readonly renewBefore?: string;
  /** Whole days left, rounded down; absent for a token that never expires. */
  readonly daysLeft?: number;
}

/**
 * The CI token's status at `now`. `managed`: the state object holding it (address and its
 * renew_before text, parsed by `renewBeforeMs` to milliseconds, undefined when unset or unreadable).
 */
export function ciTokenStatus(
  token: ActingToken,
  now: Date,
  managed?: { readonly address: string; readonly renewBefore?: string; readonly renewBeforeMs?: number },
): CiTokenStatus {
  const base = {
    id: token.id,
    label: token.label,
    expiry: token.expiry,
    ...(managed ? { managedAs: managed.address } : {}),
    ...(managed?.renewBefore !== undefined ? { renewBefore: managed.renewBefore } : {}),
  };
  if (token.expiry === null) return { ...base, state: "ok" };
  const expiry = parseInstant(token.expiry);
  if (expiry === undefined) return { ...base, state: "ok" };
  const left = expiry - now.getTime();
  const daysLeft = Math.max(0, Math.floor(left / 86_400_000));
  if (left <= 0) return { ...base, daysLeft, state: "expired" };
  if (managed?.renewBeforeMs !== undefined && left <= managed.renewBeforeMs) return { ...base, daysLeft, state: "renewal" };
  if (left <= CI_TOKEN_NOTICE_MS) return { ...base, daysLeft, state: "expiring" };
  return { ...base, daysLeft, state: "ok" };
}

const inDays = (n: number | undefined): string => (n === undefined ? "" : n === 0 ? "in less than a day" : `in ${n} ${n === 1 ? "day" : "days"}`);

/** The report's lines for a status that needs action; none for `ok`. */
export function ciTokenCallout(s: CiTokenStatus | undefined): string[] {
  if (s === undefined || s.state === "ok") return [];
  const day = s.expiry === null ? "" : s.expiry.slice(0, 10);
  const name = `The token this CI run acts with (id \`${s.id}\`, \`${JSON.stringify(s.label)}\`)`;
  const head =
    s.state === "expired"
      ? `${name} expired on ${day}.`
      : s.state === "renewal"
        ? `${name} is inside its renewal window: it expires ${day} (${inDays(s.daysLeft)}), inside renew_before ${s.renewBefore} of \`${s.managedAs}\`, so the next apply rotates it and revokes the value the CI's secret holds.`
        : `${name} expires ${day}, ${inDays(s.daysLeft)}.`;
  return [
    "> [!WARNING]",
    `> **${head}**`,
    '> Replace the CI\'s secret before then, or the next run fails with `Invalid API token … (HTTP 401)`: create the new token, put its value in the secret (`MGMT_TOKEN` / `MGMT_DRIFT_TOKEN`), re-run this job, then revoke the old one (docs/guides/team-repository.md, "Rotating the CI token").',
    "",
  ];
}
