/** What every domain module is built from, and who is acting. */
import { formatTimestamp } from "../../contract";
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

/** Seconds, minutes and days in milliseconds, and moving a wire timestamp. */
export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
export const timestampAt = (clock: Clock, offsetMs: number): string => formatTimestamp(new Date(clock.now().getTime() + offsetMs));

/** The current time in the wire and storage format. */
export const timestamp = (clock: Clock): string => formatTimestamp(clock.now());
