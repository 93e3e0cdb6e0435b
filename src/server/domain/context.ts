/** What every domain module is built from, and who is acting. */
import { formatTimestamp } from "../../contract";
import type { Clock, Secrets } from "../clock";
import type { Store, TokenRecord, UserRecord } from "../store/store";
import type { Scopes } from "../../contract/scopes";

export interface Deps {
  readonly store: Store;
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

/** Seconds, minutes and days in milliseconds, and moving a wire timestamp. */
export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
export const timestampAt = (clock: Clock, offsetMs: number): string => formatTimestamp(new Date(clock.now().getTime() + offsetMs));

/** The current time in the wire and storage format. */
export const timestamp = (clock: Clock): string => formatTimestamp(clock.now());
