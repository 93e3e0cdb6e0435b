/**
 * Creates that are never silently duplicated. When a create's outcome is unknown (the
 * connection broke after the request went out, no answer in time, a 5xx), the object may exist
 * already. Before anything else the collection is searched for an object that matches the
 * request and was created since the first attempt began, and that no other create of this
 * client has claimed: found, it is adopted (or, where the lost answer carried a value the API
 * never shows again, discarded); not found, the create is tried again, after a back-off, within
 * the client's retry budget. A refusal (4xx) is final, as before.
 *
 * A stop (the client's signal) never interrupts this once the create was sent: the search and a
 * discard run to their end, so no object is left that nobody knows of. It cancels only the
 * back-off before a create sent again, which nothing exists of yet.
 *
 * This is the mechanism only: what makes an object "the same request" is each managed type's own,
 * beside its resource (`src/provider/resources/<type>/collection.ts`), which passes it in.
 */
import { parseTimestamp } from "../contract/timestamps";
import { ApiError, NetworkError } from "./errors";
import type { CallOptions } from "./call";
import type { MgmtClient } from "./index";

/** Whether a failed create may nonetheless have happened on the server. */
export function outcomeUnknown(err: unknown): boolean {
  if (err instanceof NetworkError) return err.kind === "network" || err.kind === "timeout";
  return err instanceof ApiError && err.status >= 500;
}

/**
 * Servers stamp `created` in whole seconds on their own clock: a candidate counts as new from
 * this long before the first attempt, so a second boundary or a small clock skew never hides it.
 */
export const CREATED_SLACK_MS = 5_000;

/** The calls that finish a create already sent: not cancelled by a stop. */
const FINISHING: CallOptions = { signal: null };

export interface CreateOnce<T> {
  create(): Promise<T>;
  /** Objects matching the request created at or after `since` (any order), asked with `o`. */
  candidates(since: Date, o: CallOptions): Promise<T[]>;
  /** The identity claims are kept by (an id, a label). */
  key(item: T): string;
  /** `adopt` (default): the found object is the result. `discard`: delete it and create again (its answer held a value that is lost). */
  readonly found?: "adopt" | "discard";
  discard?(item: T, o: CallOptions): Promise<void>;
  /**
   * A create refused because the object exists already (a unique label): the key it names, or
   * undefined for any other refusal. That object, unless a create of this client claimed it, is
   * looked up with `find` and adopted when it is the one asked for (null: it is not, and the refusal stands).
   */
  existing?: { keyOf(err: unknown): string | undefined; find(key: string): Promise<T | null> };
}

export interface Created<T> {
  readonly value: T;
  /** True when the value is an object a lost answer had created, found and adopted. */
  readonly adopted: boolean;
  /** Adopted because the create was refused for an object that already exists and matches (a tag an earlier apply could not record). */
  readonly existed?: boolean;
}

/** Keys of the objects each client's creates have produced or adopted, per collection. */
const claims = new WeakMap<MgmtClient, Map<string, Set<string>>>();

function claimed(client: MgmtClient, collection: string): Set<string> {
  let byCollection = claims.get(client);
  if (!byCollection) claims.set(client, (byCollection = new Map()));
  let keys = byCollection.get(collection);
  if (!keys) byCollection.set(collection, (keys = new Set()));
  return keys;
}

/** A refusal for an object that exists: adopted when it is unclaimed and the one asked for, else the refusal is thrown. */
async function adoptExisting<T>(mine: Set<string>, o: CreateOnce<T>, err: unknown): Promise<Created<T>> {
  const key = o.existing?.keyOf(err);
  if (key === undefined || mine.has(key)) throw err;
  const value = await o.existing!.find(key);
  if (value === null) throw err;
  mine.add(key);
  return { value, adopted: true, existed: true };
}

export async function createOnce<T>(client: MgmtClient, collection: string, o: CreateOnce<T>): Promise<Created<T>> {
  const since = new Date(Date.now() - CREATED_SLACK_MS);
  const mine = claimed(client, collection);
  const began = performance.now();
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await o.create();
      mine.add(o.key(value));
      return { value, adopted: false };
    } catch (err) {
      if (!outcomeUnknown(err)) return adoptExisting(mine, o, err);
      const found = (await o.candidates(since, FINISHING)).filter((c) => !mine.has(o.key(c)));
      if (found.length > 0 && (o.found ?? "adopt") === "adopt") {
        const value = found[0]!;
        mine.add(o.key(value));
        return { value, adopted: true };
      }
      for (const orphan of found) await o.discard?.(orphan, FINISHING);
      // The budget counts what was waited too, so it ends even where the waits are simulated. A stop
      // ends it too: nothing of this create exists, and it is not sent again.
      const delayMs = await client.http.backoff(attempt, undefined, Math.max(performance.now() - began, waited));
      if (delayMs === undefined) throw err;
      waited += delayMs;
    }
  }
}

/** Whether an object was stamped at or after `since` (a candidate's creation time against the first attempt's). */
export const createdSince = (created: string, since: Date) => parseTimestamp(created).getTime() >= since.getTime();

/** The items of a listing that `keep` accepts, for a create's candidates. */
export async function matching<T>(items: AsyncIterable<T>, keep: (item: T) => boolean): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) if (keep(item)) out.push(item);
  return out;
}
