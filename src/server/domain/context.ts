/** What every domain module is built from, and who is acting. */
import { formatTimestamp } from "../../contract";
import { LAST_WIRE_MS, LAST_WIRE_TIMESTAMP as LAST_WIRE_TIME } from "../../contract/timestamps";
import { invalid } from "./errors";
import type { Clock, Secrets } from "../clock";
import type { StoreOf } from "../store/store";
import type { Scopes } from "../../contract/scopes";
import type { TokenRecord, UserRecord } from "./records";

/**
 * What a service is built from: the store with the repositories `R` it uses (each area's
 * service names them, from the areas' `store.ts`), the clock and the secret source.
 */
export interface Deps<R = unknown> {
  readonly store: StoreOf<R>;
  readonly clock: Clock;
  readonly secrets: Secrets;
}

/** The caller, as established from its bearer token. */
export interface Actor {
  readonly user: UserRecord;
  readonly token: TokenRecord;
  readonly scopes: Scopes;
  /** The OAuth client that issued the acting token; null for a personal access token. */
  readonly clientId: number | null;
}

/** Whether an id can name a row of the store (HTTP asks before it calls the domain). */
export { isStorableId } from "../store/store";

/** Minutes and days in milliseconds; "now" and times from now in the wire form (`wire*`), and "now" to compare stored times with. */
export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
export const wireAt = (clock: Clock, offsetMs: number): string => wireLater(clock.now().getTime(), offsetMs);

/** `offsetMs` after `fromMs` in the wire form; a computed time past what the wire can show is refused (400), not stored. */
export const wireLater = (fromMs: number, offsetMs: number): string => {
  const at = fromMs + offsetMs;
  if (offsetMs !== 0 && at > LAST_WIRE_MS)
    throw invalid(null, `A time this computes (${formatTimestamp(at)}) falls after ${LAST_WIRE_TIME}, the last the API can show`);
  return wireOf(at);
};

/** The last and first instants the wire form (four-digit years) can show. */
export { LAST_WIRE_MS, LAST_WIRE_TIMESTAMP as LAST_WIRE_TIME } from "../../contract/timestamps";
export const FIRST_WIRE_MS = -62_167_219_200_000;

/**
 * The current time in the wire and storage format. A clock run past what the wire can show is
 * refused here, before anything is written: a row stamped `+010000-...` would commit and then
 * fail every answer and list that shows it.
 */
export const wireNow = (clock: Clock): string => wireOf(clock.now().getTime());

/**
 * "Now" for comparing with stored times only (expired? in the future?): held at the last second
 * the wire can show, which every stored time precedes, so reads keep answering past it.
 */
export const comparableNow = (clock: Clock): string => formatTimestamp(Math.max(FIRST_WIRE_MS, Math.min(LAST_WIRE_MS, clock.now().getTime())));

/**
 * Whether a stored time (an expiry; null for "never") is still ahead of the clock. Stored times are
 * the wire form, fixed-width UTC text, so they compare as text: this is the comparison the SQL of
 * the lists makes with `comparableNow` too, and the one rule for "expired".
 */
export const stillAhead = (stored: string | null, clock: Clock): boolean => stored === null || stored > comparableNow(clock);

const wireOf = (at: number): string => {
  if (at > LAST_WIRE_MS || at < FIRST_WIRE_MS)
    throw invalid(null, `The server's clock is outside 0000-01-01T00:00:00 to ${LAST_WIRE_TIME}, the times the API can show (DELETE /__admin/clock resets it)`);
  return formatTimestamp(at);
};
