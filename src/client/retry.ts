/**
 * The retry policy, as pure functions: which outcome of which method may be tried again, and how
 * long to wait first. No I/O, no clock, no randomness of its own (both are passed in), so the
 * whole table is unit-testable.
 *
 * Rules (a create must never be silently duplicated):
 *
 * | outcome                                   | GET HEAD PUT DELETE OPTIONS | POST, PATCH |
 * |-------------------------------------------|-----------------------------|-------------|
 * | 429                                       | retry                       | retry       |
 * | 500 502 503 504                           | retry                       | no          |
 * | connect failure (request never sent)      | retry                       | retry       |
 * | connection lost after the request went out| retry                       | no          |
 * | timeout (headers, body or attempt timer)  | retry                       | no          |
 * | anything else (4xx, 501, DNS name unknown,| no                          | no          |
 * | TLS failure, cancelled by the caller...)  |                             |             |
 *
 * 429 is safe for every method because the server refused the request before doing anything.
 * "Connect failure" means the TCP connection was never established (ECONNREFUSED, connect
 * timeout...), so no byte of the request reached the server.
 *
 * Budget: an operation is retried while its next attempt would start within `maxElapsedMs` of
 * its first (5 minutes by default), however many attempts that takes, so a rate-limited or
 * flaky API is ridden out rather than failed after a fixed count; `maxRetries` is an optional
 * cap on the count besides. A connection that was never established (refused, name not yet
 * resolvable) is tried only `maxConnectRetries` more times: nothing listening rarely starts
 * listening within seconds, and the user is better served by an early, explained failure.
 *
 * Delays: a `Retry-After` header (integer seconds or HTTP-date) is honoured exactly. We never
 * retry earlier than the server asked (that attempt would be refused again and wasted), so
 * `maxDelayMs` caps only the computed back-off. A `Retry-After` longer than `maxRetryAfterMs`
 * is not waited out at all: the error is returned at once, saying what the server asked for.
 * (Upstream clients clamp Retry-After to their cap instead and retry early; we prefer one honest
 * wait or an immediate, explained failure.) Without `Retry-After` the delay is exponential
 * back-off, `baseDelayMs * 2^(retry-1)` capped at `maxDelayMs`, with "equal jitter": uniformly
 * drawn from the upper half, so concurrent clients spread out yet never retry instantly.
 */

export interface RetryPolicy {
  /** Retries after the first attempt (so at most maxRetries + 1 requests); Infinity: bounded by time only. */
  readonly maxRetries: number;
  /** No retry starts later than this after the operation's first attempt started. */
  readonly maxElapsedMs: number;
  /** Retries of a connection never established (ECONNREFUSED, EAI_AGAIN, connect timeout). */
  readonly maxConnectRetries: number;
  /** Back-off before the first retry when the server gives no Retry-After. */
  readonly baseDelayMs: number;
  /** Cap of the computed back-off (not of Retry-After). */
  readonly maxDelayMs: number;
  /** A Retry-After longer than this is not waited out: the call fails at once. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxRetries: Number.POSITIVE_INFINITY,
  maxElapsedMs: 300_000,
  maxConnectRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
});

/** How long one attempt may take: connecting, waiting for headers and reading the body. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Methods that may be repeated without changing the result (RFC 9110 §9.2.2). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
/** Statuses worth another try of an idempotent request. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/**
 * How a request failed without an HTTP response:
 * - `connect`: the connection was never established; the request was not sent.
 * - `network`: the connection broke; the request may have reached the server.
 * - `timeout`: no (complete) answer in time; the request may have been processed.
 * - `aborted`: the caller cancelled it.
 * - `fatal`: retrying will not help (unknown host name, TLS failure, bad argument, ...).
 */
export type FailureKind = "connect" | "network" | "timeout" | "aborted" | "fatal";

export type Outcome = { readonly status: number } | { readonly failure: FailureKind };

/**
 * Whether a write with this outcome may have taken effect, so that the client finishes it rather than
 * cancel it on a stop: a 5xx answer, or no complete answer after its bytes went out (network, timeout).
 * A 4xx, or a connection never made, left nothing behind.
 */
export const writeMayHaveActed = (outcome: Outcome): boolean =>
  "status" in outcome ? outcome.status >= 500 : outcome.failure === "network" || outcome.failure === "timeout";

/** Connect-phase errors that can clear up by themselves. */
const CONNECT_CODES = new Set(["ECONNREFUSED", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);
/** These mean "never sent" when raised by connect(2), "maybe sent" otherwise. */
const ROUTE_CODES = new Set(["ENETUNREACH", "EHOSTUNREACH", "ENETDOWN", "EHOSTDOWN", "ETIMEDOUT", "ECONNRESET"]);
const NETWORK_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH", "ENETDOWN", "EHOSTDOWN"]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

function errorFields(err: unknown): { code?: string; syscall?: string } {
  if (typeof err !== "object" || err === null) return {};
  const e = err as { code?: unknown; syscall?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === "string") {
    return { code: e.code, syscall: typeof e.syscall === "string" ? e.syscall : undefined };
  }
  // Happy-eyeballs connects fail with an AggregateError of per-address errors.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorFields(e.errors[0]);
  if (e.cause !== undefined && e.cause !== err) return errorFields(e.cause);
  return {};
}

/** Sorts a transport error (Node system error or undici error) into a FailureKind. */
export function classifyError(err: unknown): FailureKind {
  const { code, syscall } = errorFields(err);
  if (code === undefined) return "fatal";
  if (CONNECT_CODES.has(code)) return "connect";
  if (ROUTE_CODES.has(code) && syscall === "connect") return "connect";
  if (TIMEOUT_CODES.has(code)) return "timeout";
  if (NETWORK_CODES.has(code)) return "network";
  if (code === "UND_ERR_ABORTED" || code === "ABORT_ERR") return "aborted";
  // ENOTFOUND (a host name that does not resolve), TLS errors, UND_ERR_CLOSED (client closed)...
  return "fatal";
}

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/** May this outcome of this method be tried again (attempt budget aside)? */
export function isRetryable(method: string, outcome: Outcome, idempotent = isIdempotent(method)): boolean {
  if ("status" in outcome) {
    if (outcome.status === 429) return true;
    return idempotent && RETRYABLE_STATUSES.has(outcome.status);
  }
  switch (outcome.failure) {
    case "connect":
      return true;
    case "network":
    case "timeout":
      return idempotent;
    case "aborted":
    case "fatal":
      return false;
  }
}

/**
 * Milliseconds a `Retry-After` value asks for: integer seconds or an HTTP-date (a date in the
 * past means 0). Undefined when absent or unreadable, and the caller falls back to back-off.
 */
export function parseRetryAfter(value: string | string[] | undefined | null, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === "") return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // "-1", "1.5": not a delta-seconds, not a date
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** Exponential back-off with equal jitter for the n-th retry (1-based); random() in [0, 1). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const exp = policy.baseDelayMs * 2 ** Math.max(0, retry - 1);
  const capped = Math.min(policy.maxDelayMs, exp);
  const half = capped / 2;
  return Math.round(half + random() * half);
}

export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number; readonly fromRetryAfter: boolean }
  | { readonly retry: false; readonly why: "not-retryable" | "exhausted" | "out-of-time" | "retry-after-too-long"; readonly retryAfterMs?: number };

export interface RetryInput {
  readonly method: string;
  readonly outcome: Outcome;
  /** Requests made so far, including the one that just failed (1 after the first). */
  readonly attempts: number;
  /** The response's Retry-After header, if any. */
  readonly retryAfter?: string | string[] | null;
  /** Overrides the method's own idempotency: a POST whose repetition is harmless (a secret reset). */
  readonly idempotent?: boolean;
  /** Milliseconds since the operation's first attempt started; 0 when not tracked. */
  readonly elapsedMs?: number;
}

/** The whole policy: whether to try again and after how long. */
export function decideRetry(input: RetryInput, policy: RetryPolicy, nowMs: number, random: () => number): RetryDecision {
  if (!isRetryable(input.method, input.outcome, input.idempotent)) return { retry: false, why: "not-retryable" };
  if (input.attempts > policy.maxRetries) return { retry: false, why: "exhausted" };
  if ("failure" in input.outcome && input.outcome.failure === "connect" && input.attempts > policy.maxConnectRetries) return { retry: false, why: "exhausted" };
  const elapsed = input.elapsedMs ?? 0;
  const retryAfterMs = "status" in input.outcome ? parseRetryAfter(input.retryAfter, nowMs) : undefined;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxRetryAfterMs) return { retry: false, why: "retry-after-too-long", retryAfterMs };
    if (elapsed + retryAfterMs > policy.maxElapsedMs) return { retry: false, why: "out-of-time", retryAfterMs };
    return { retry: true, delayMs: retryAfterMs, fromRetryAfter: true };
  }
  const delayMs = backoffDelay(input.attempts, policy, random);
  if (elapsed + delayMs > policy.maxElapsedMs) return { retry: false, why: "out-of-time" };
  return { retry: true, delayMs, fromRetryAfter: false };
}

/** What an answer the client stops at was, for the note its error carries. */
export interface RefusedAnswer {
  readonly status: number;
  /** Requests made, including this one. */
  readonly attempts: number;
  readonly elapsedMs: number;
  /** The client's API root path (`/v4`). */
  readonly basePath: string;
}

/**
 * Why the client stopped at an answer, as its ApiError says it: a Retry-After longer than it waits, a
 * retry budget spent, the attempts made, or (a first 404) an API root that does not end in /v4; and the
 * Retry-After it did not wait. Nothing to say: a first refusal under the usual root.
 */
export function refusalNote(
  decision: Extract<RetryDecision, { retry: false }>,
  answer: RefusedAnswer,
  policy: RetryPolicy,
): { note?: string; retryAfterMs?: number } {
  if (decision.why === "retry-after-too-long") {
    const retryAfterMs = decision.retryAfterMs;
    return {
      retryAfterMs,
      note: `server asked to retry after ${Math.ceil((retryAfterMs ?? 0) / 1000)} s, longer than the ${policy.maxRetryAfterMs / 1000} s this client waits`,
    };
  }
  if (decision.why === "out-of-time") {
    return {
      retryAfterMs: decision.retryAfterMs,
      note: `gave up after ${answer.attempts} attempts in ${Math.round(answer.elapsedMs / 1000)} s; this client retries for at most ${Math.round(policy.maxElapsedMs / 1000)} s`,
    };
  }
  if (answer.attempts > 1) return { note: `gave up after ${answer.attempts} attempts` };
  if (answer.status === 404 && !/\/v4(beta)?$/.test(answer.basePath))
    return { note: `the API root usually ends in /v4, as \`mgmt serve\` prints it; this client's is "${answer.basePath || "/"}"` };
  return {};
}

/** Whether a retry after `delayMs` still starts within the budget of an operation `elapsedMs` old. */
export function withinBudget(elapsedMs: number, delayMs: number, policy: RetryPolicy): boolean {
  return elapsedMs + delayMs <= policy.maxElapsedMs;
}
