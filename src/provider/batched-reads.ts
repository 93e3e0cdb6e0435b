/**
 * Batched reads. A refresh reads every object of a type once, in one provider process; one GET
 * per object costs a request each (1,000 keys, 1,000 requests, and rate limits). Instead the
 * first read of a collection fetches the whole of it in pages of 500, and the other reads of
 * that type are answered from that snapshot, each entry once: a second read of the same object
 * asks the API again, so nothing the process already saw is served stale twice. An id not in the
 * snapshot is fetched on its own (a fresh object is never missed; 404 still means gone); a write
 * of the type drops the snapshot. If the collection cannot be listed (a token without the list's
 * scope), reads fall back to one GET each.
 */
import type { MgmtClient } from "../client";
import { orNullIfGone } from "./resources/ids";

export class BatchedCollection<T> {
  #snapshot: Promise<Map<string, T> | null> | undefined;

  constructor(
    private readonly enabled: boolean,
    private readonly list: () => AsyncIterable<T>,
    private readonly keyOf: (item: T) => string,
    private readonly getOne: (key: string) => Promise<T>,
  ) {}

  /** The object, or null when it no longer exists. */
  async read(key: string): Promise<T | null> {
    const snapshot = this.enabled ? await (this.#snapshot ??= this.#load()) : null;
    const hit = snapshot?.get(key);
    if (hit !== undefined) {
      snapshot!.delete(key);
      return hit;
    }
    return orNullIfGone(() => this.getOne(key));
  }

  /** After a write of this type: the next read lists again. */
  invalidate(): void {
    this.#snapshot = undefined;
  }

  async #load(): Promise<Map<string, T> | null> {
    try {
      const all = new Map<string, T>();
      for await (const item of this.list()) all.set(this.keyOf(item), item);
      return all;
    } catch {
      // Reads then go one by one, and report their own errors.
      return null;
    }
  }
}

/**
 * The collections the managed resources read. Tags are not here: a tag's objects come only from
 * its own tagged-objects view, one request per tag whatever is batched. The singletons are one
 * request each already.
 */
export function batchedReads(client: MgmtClient, enabled: boolean) {
  return {
    sshKeys: new BatchedCollection(
      enabled,
      () => client.listSshKeys(),
      (k) => String(k.id),
      (id) => client.getSshKey(Number(id)),
    ),
    tokens: new BatchedCollection(
      enabled,
      () => client.listTokens(),
      (t) => String(t.id),
      (id) => client.getToken(Number(id)),
    ),
    oauthClients: new BatchedCollection(
      enabled,
      () => client.listOAuthClients(),
      (c) => c.id,
      (id) => client.getOAuthClient(id),
    ),
  };
}
export type BatchedReads = ReturnType<typeof batchedReads>;
