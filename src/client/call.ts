/**
 * What one call to the API is, as the client, its per-call exchange and one attempt on the wire all
 * name it: the method, the options a caller passes, the credentials asked on every attempt, and
 * the events reported to the caller's log. Types only, so those modules need not import each other.
 */

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/** Reported after every attempt, e.g. for the provider's log. Holds nothing secret: no header, no body. */
export interface AttemptEvent {
  readonly operation: string;
  readonly method: string;
  /** Path and query below the API root. */
  readonly path: string;
  /** 1 = the first request. */
  readonly attempt: number;
  /** The HTTP status, or undefined when no response came. */
  readonly status?: number;
  /** Why no response came: `ECONNREFUSED`, `timeout`, `aborted`... */
  readonly failure?: string;
  readonly durationMs: number;
}

/** Reported before each retry, e.g. for the provider's log. Holds nothing secret. */
export interface RetryEvent {
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  /** The attempt that failed (1 = the first request). */
  readonly attempt: number;
  readonly delayMs: number;
  /** `429`, `503`, `ECONNREFUSED`, `timeout`... */
  readonly reason: string;
}

/**
 * A bearer token that can change while the client lives: a proxy-user token renewed before it
 * expires. The client asks for the current one on every attempt.
 */
export interface Credentials {
  current(signal?: AbortSignal): Promise<string>;
  /**
   * `token` was answered 401. Resolves true when a fresh token is now current, so the request is
   * worth repeating once; a 401 means the API did nothing, so even a create may be repeated.
   */
  refresh(token: string, signal?: AbortSignal): Promise<boolean>;
}

export interface CallOptions {
  /**
   * Cancels the call (default: the client's signal): its waits, its requests not yet sent, and a
   * read in flight. A write once sent is never abandoned, since the API may act on it whatever
   * happens to the connection: it runs to its answer or its timeout, and a write that may have
   * taken effect is repeated, where that is safe, once more at once to learn its outcome.
   * `null`: nothing cancels the call, not even the client's signal (the search that finishes a
   * create already sent).
   */
  readonly signal?: AbortSignal | null;
}
