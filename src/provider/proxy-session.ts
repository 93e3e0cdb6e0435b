/**
 * Acting inside a child account as its proxy user. The API hands a parent user 15-minute
 * proxy tokens that cannot be renewed, so a session holds one at a time: it mints a fresh one
 * before the current one runs out (and revokes the old), mints one at once when the API says
 * the current one is no longer valid (an expiry the local clock could not see coming), and
 * revokes the last one when the provider ends, so no token outlives the run.
 */
import type { Credentials, MgmtClient } from "../client";
import { parseTimestamp } from "../contract/timestamps";
import type { PersonalAccessToken } from "../contract/tokens";
import type { Log } from "./framework/log";

/** A token the API minted, and when (on our clock) we stop trusting it. */
interface Held {
  readonly id: number;
  readonly token: string;
  readonly renewAt: number;
}

/**
 * When to stop using a token: after four fifths of its lifetime as the API states it
 * (expiry − created, both on the server's clock, so skew between the clocks does not matter),
 * counted on our clock from the moment we received it.
 */
export function renewalTime(token: Pick<PersonalAccessToken, "created" | "expiry">, receivedAt: number): number | undefined {
  if (token.expiry === null) return undefined;
  const lifetime = parseTimestamp(token.expiry).getTime() - parseTimestamp(token.created).getTime();
  if (!(lifetime > 0)) return receivedAt;
  return receivedAt + Math.floor((lifetime * 4) / 5);
}

/**
 * Revokes a proxy token with the token itself: only the proxy user can revoke its tokens, so the
 * parent's client cannot. `clientWith` makes a client acting with a given token. The provider's
 * stop does not cancel it unless a signal is given: a revoke cut short leaves a live credential
 * for its last 15 minutes, and the stop is exactly when the last one is revoked.
 */
export async function revokeWithItself(clientWith: (token: string) => MgmtClient, token: string, id: number, signal: AbortSignal | null = null): Promise<void> {
  const own = clientWith(token);
  try {
    await own.revokeToken(id, { signal });
  } finally {
    await own.close();
  }
}

export interface ProxySessionOptions {
  /** Acts as the parent: mints proxy tokens. */
  readonly parent: MgmtClient;
  readonly euuid: string;
  /** Revokes a token with that token itself: only the proxy user can revoke its tokens. */
  readonly revoke: (token: string, id: number) => Promise<void>;
  readonly now?: () => number;
  readonly log: Log;
}

export class ProxySession implements Credentials {
  readonly #opts: ProxySessionOptions;
  readonly #now: () => number;
  #held: Held | undefined;
  #minting: Promise<Held> | undefined;
  readonly #revocations = new Set<Promise<void>>();
  #closed = false;

  constructor(opts: ProxySessionOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** The first token; configure calls this so a parent token without the scope fails there. */
  async start(signal?: AbortSignal): Promise<void> {
    await this.#renew(undefined, signal);
  }

  async current(signal?: AbortSignal): Promise<string> {
    const held = this.#held;
    if (held !== undefined && this.#now() < held.renewAt) return held.token;
    return (await this.#renew(held, signal)).token;
  }

  async refresh(token: string, signal?: AbortSignal): Promise<boolean> {
    if (this.#closed) return false;
    const held = this.#held;
    // Another request already replaced the rejected token.
    if (held !== undefined && held.token !== token) return true;
    this.#opts.log("info", `the proxy token of child account ${this.#opts.euuid} was rejected before its renewal time; minting a new one`);
    await this.#renew(held, signal);
    return true;
  }

  /** Revokes the token in use and waits for every revocation still under way. */
  async close(): Promise<void> {
    this.#closed = true;
    const held = this.#held ?? (await this.#minting?.catch(() => undefined));
    this.#held = undefined;
    if (held !== undefined) this.#retire(held);
    await Promise.all(this.#revocations);
  }

  /** One mint at a time: concurrent requests that find the token stale share the new one. */
  #renew(stale: Held | undefined, signal?: AbortSignal): Promise<Held> {
    if (this.#closed) return Promise.reject(new Error("the provider is shutting down; the child account session is closed"));
    this.#minting ??= (async () => {
      try {
        const minted = await this.#opts.parent.createChildAccountToken(this.#opts.euuid, { signal });
        const renewAt = renewalTime(minted, this.#now()) ?? Number.POSITIVE_INFINITY;
        const held: Held = { id: minted.id, token: minted.token, renewAt };
        this.#held = held;
        this.#opts.log("info", `acting in child account ${this.#opts.euuid} with proxy token ${minted.id}`, { token_id: minted.id, expiry: minted.expiry });
        if (stale !== undefined) this.#retire(stale);
        return held;
      } finally {
        this.#minting = undefined;
      }
    })();
    return this.#minting;
  }

  /** Best effort: a token the API no longer accepts has expired or been revoked already. */
  #retire(held: Held): void {
    const revocation = this.#opts.revoke(held.token, held.id).then(
      () => this.#opts.log("info", `revoked proxy token ${held.id} of child account ${this.#opts.euuid}`, { token_id: held.id }),
      (err: unknown) =>
        this.#opts.log("debug", `proxy token ${held.id} was not revoked: ${err instanceof Error ? err.message : String(err)}`, { token_id: held.id }),
    );
    this.#revocations.add(revocation);
    void revocation.finally(() => this.#revocations.delete(revocation));
  }
}

/** A client acting in a child account, and how to end it. */
export interface ChildAccountClient {
  readonly client: MgmtClient;
  readonly session: ProxySession;
  /** Revokes the proxy token in use, then closes both clients. */
  close(): Promise<void>;
}

/**
 * A client acting in child account `euuid` through proxy tokens minted with `parent`, the first
 * one already minted. When it cannot be (a parent token without the scope, no such child),
 * `parent` is closed and the error is thrown. `clientWith` makes a client acting with given
 * credentials (a token, or the session itself).
 */
export async function childAccountClient(opts: {
  readonly parent: MgmtClient;
  readonly euuid: string;
  readonly clientWith: (credentials: string | Credentials) => MgmtClient;
  readonly log: Log;
  readonly now?: () => number;
  readonly signal?: AbortSignal;
}): Promise<ChildAccountClient> {
  const { parent, clientWith } = opts;
  const session = new ProxySession({
    parent,
    euuid: opts.euuid,
    log: opts.log,
    now: opts.now,
    revoke: (proxyToken, id) => revokeWithItself(clientWith, proxyToken, id),
  });
  try {
    await session.start(opts.signal);
  } catch (err) {
    await parent.close();
    throw err;
  }
  const client = clientWith(session);
  return {
    client,
    session,
    close: async () => {
      await session.close();
      await Promise.all([client.close(), parent.close()]);
    },
  };
}
