/**
 * Rules on a token's lifetime settings, checked at validate and plan so that a value the API
 * cannot honour is refused naming its attribute, before anything is created: pure functions of
 * the configured texts and the plan's "now". And the one guard of delete: never the acting token.
 */
import { LAST_WIRE_MS, LAST_WIRE_TIMESTAMP, parseDuration, parseRfc3339 } from "../../../contract/timestamps";
import type { ProviderContext } from "../../config";
import { orNullIfGone } from "../../../client/errors";

/** The shortest lifetime asked for: a token must still be valid when the API stores it, after the request's trip. */
export const MIN_TOKEN_LIFETIME_MS = 60_000;

export interface LifetimeProblem {
  attribute: "expires_in" | "renew_before" | "expiry";
  summary: string;
  detail: string;
}

/** What is wrong with `expires_in` and `renew_before` on their own (no clock needed); each known text is a valid duration or checked elsewhere. */
export function lifetimeProblems(expiresIn: string | undefined, renewBefore: string | undefined): LifetimeProblem[] {
  const problems: LifetimeProblem[] = [];
  const life = expiresIn === undefined ? undefined : parseDuration(expiresIn);
  const window = renewBefore === undefined ? undefined : parseDuration(renewBefore);
  if (life !== undefined && life > 0 && life < MIN_TOKEN_LIFETIME_MS)
    problems.push({
      attribute: "expires_in",
      summary: "Invalid expires_in",
      detail: `expires_in must be at least 1m: a token must still be valid when the API stores it; got "${expiresIn}".`,
    });
  if (life !== undefined && window !== undefined && window >= life)
    problems.push({
      attribute: "renew_before",
      summary: "Invalid renew_before",
      detail: `renew_before ("${renewBefore}") must be shorter than expires_in ("${expiresIn}"): a token always inside its renewal window would be replaced by every plan.`,
    });
  return problems;
}

/** What is wrong with the expiry a create at `now` would ask for: in the past, or past what the API's timestamps can show. */
export function expiryProblems(expiry: string | undefined, expiresIn: string | undefined, now: Date): LifetimeProblem[] {
  const life = expiresIn === undefined ? undefined : parseDuration(expiresIn);
  if (life !== undefined && now.getTime() + life > LAST_WIRE_MS)
    return [
      {
        attribute: "expires_in",
        summary: "Invalid expires_in",
        detail: `expires_in ("${expiresIn}") would put the token's expiry after ${LAST_WIRE_TIMESTAMP}Z, the last time the API can store.`,
      },
    ];
  const at = expiry === undefined ? undefined : parseRfc3339(expiry);
  if (at === undefined) return [];
  if (at > LAST_WIRE_MS)
    return [
      {
        attribute: "expiry",
        summary: "Invalid expiry",
        detail: `expiry must be at or before ${LAST_WIRE_TIMESTAMP}Z, the last time the API can store; got "${expiry}".`,
      },
    ];
  if (at <= now.getTime())
    return [{ attribute: "expiry", summary: "Invalid expiry", detail: `expiry must be in the future; got "${expiry}", which has passed.` }];
  return [];
}

/**
 * Revoking the token the provider acts with would cut off the rest of the apply and every later
 * one (a state entry or an import can name it): refused, naming it and the way to rotate it.
 * The API's reads show a token's first 16 characters, which are compared with the configured one's.
 */
export async function refuseActingToken(ctx: ProviderContext, id: number): Promise<void> {
  if (ctx.actingTokenPrefix === null) return;
  const live = await orNullIfGone(() => ctx.client.getToken(id));
  if (live === null || live.token !== ctx.actingTokenPrefix) return;
  throw new Error(
    `mgmt_token ${id} ("${live.label}") is the token this provider acts with: revoking it would end this apply's access and every later one. ` +
      "To rotate it, create a new mgmt_token, give its value to the provider (token or MGMT_TOKEN), apply, then remove the old one from the configuration; " +
      "or run `terraform state rm` (`tofu state rm`) on it to stop managing it without revoking it.",
  );
}
