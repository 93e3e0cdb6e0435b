/** What every domain module is built from, and who is acting. */
import { formatTimestamp } from "../../contract";
import type { Clock, Secrets } from "../clock";
import type { Store, TokenRecord, UserRecord } from "../store/store";
import type { Scopes } from "./scopes";

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
}

/** The current time in the wire and storage format. */
export const timestamp = (clock: Clock): string => formatTimestamp(clock.now());
