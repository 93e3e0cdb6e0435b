/**
 * One call's exchange with the API: its attempts until an answer it keeps, or an error. Each phase is
 * one method holding one rule of the client (docs/architecture.md, `CallOptions.signal` in ./http):
 *
 * - send: a stop cancels a request not yet sent, and a read in flight; never a write's bytes once sent.
 * - classify: a 2xx is the answer; a 401 with renewable credentials is repeated once (even a create:
 *   the API did nothing); anything else is retried or refused per the policy in ./retry.
 * - finish a write: a write that may have taken effect (a 5xx, no complete answer) is no longer
 *   cancelled by the stop; a stop during its wait repeats it once at once to learn its outcome.
 * - wait: the back-off or Retry-After, counted into the budget; a stop ends it.
 * - refuse: the error an answer ends with; a 404 only once the root is proven to be the API's.
 *
 * An Exchange lives for one call; the client's fixed parts come in an ExchangeContext.
 */
import { STATUS_CODES } from "node:http";
import { ErrorBody } from "../contract/common";
import { AttemptFailure, checkToken, errorCode, header, type RawResponse, type SendAttempt } from "./attempt";
import { ApiError, NetworkError, type ApiErrorItem } from "./errors";
import type { AttemptEvent, CallOptions, Credentials, Method, RetryEvent, Sleep } from "./call";
import { decideRetry, refusalNote, writeMayHaveActed, type FailureKind, type Outcome, type RetryDecision, type RetryPolicy } from "./retry";

/** What every exchange of a client shares: where the API is, how to send, wait and report, and the root check. */
export interface ExchangeContext {
  readonly origin: string;
  /** The API root's path (`/v4`). */
  readonly basePath: string;
  readonly timeoutMs: number;
  readonly policy: RetryPolicy;
  readonly token: string | Credentials;
  /** The client's stop: cancels every call that brings no signal of its own. */
  readonly signal: AbortSignal | undefined;
  readonly send: SendAttempt;
  readonly sleep: Sleep;
  readonly now: () => number;
  readonly random: () => number;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  readonly onAttempt: ((event: AttemptEvent) => void) | undefined;
  confirmRoot(signal: AbortSignal | null): Promise<unknown>;
  /** The probe's own 404 as "this URL is not the API". */
  notTheApi(err: ApiError): Error;
}

/** The call: what `requestOf` made of it (path below the root, body, headers), and what may repeat it. */
export interface ExchangeCall extends CallOptions {
  readonly operation: string;
  readonly method: Method;
  readonly path: string;
  readonly body: string | Uint8Array | undefined;
  readonly headers: Record<string, string>;
  readonly idempotent?: boolean;
  /**
   * What a 404 to this call says: `answer`, that (the root probe itself, or a client without one);
   * `not-the-api`, that the URL is not the API's (the probe's own path, asked before the probe);
   * `confirm-root`, that the object is gone once the root is proven to be the API's.
   */
  readonly notFound: "answer" | "not-the-api" | "confirm-root";
}

type Sent = { readonly res: RawResponse; readonly token: string } | { readonly failure: AttemptFailure };

/** What the classify phase makes of an attempt: the answer, a repeat at once, or a retry after a wait. */
type Next = { readonly answer: RawResponse } | { readonly again: true } | { readonly retry: RetryEvent; readonly unanswered: () => Error };

/** A signal that never aborts: the stop of a write being finished that had none. */
const NEVER = new AbortController().signal;

/** The `errors` of an error response, or one item standing for a body that is not one. */
function errorItems(res: RawResponse): ApiErrorItem[] {
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(res.text));
    if (parsed.success) return parsed.data.errors;
  } catch {
    // not JSON; fall through
  }
  const type = header(res.headers, "content-type") ?? "";
  const text = res.text.trim();
  if (type.startsWith("text/plain") && text !== "" && text.length <= 200 && !text.includes("\n")) return [{ reason: text }];
  return [{ reason: STATUS_CODES[res.status] ?? "HTTP error" }];
}

export class Exchange {
  readonly #ctx: ExchangeContext;
  readonly #call: ExchangeCall;
  readonly #reads: boolean;
  /** What may still cancel this call (see CallOptions.signal); undefined once a write is being finished. */
  #stop: AbortSignal | undefined;
  /** Set once a write may have taken effect: the stop it had, which now only ends its waits. */
  #finishing: AbortSignal | undefined;
  /** A write being finished was stopped during a wait: the attempt now going out is its last. */
  #lastAttempt = false;
  #refreshed = false;
  /** Requests made so far, counting the one in flight. */
  #attempts = 0;
  // Time spent, or waited for when the waits are simulated, since the first attempt: the retry budget.
  readonly #began = performance.now();
  #waited = 0;

  constructor(ctx: ExchangeContext, call: ExchangeCall) {
    this.#ctx = ctx;
    this.#call = call;
    this.#reads = call.method === "GET" || call.method === "HEAD";
    this.#stop = call.signal === undefined ? ctx.signal : (call.signal ?? undefined);
  }

  /** Attempts until an answer: resolves with a 2xx response, throws ApiError or NetworkError otherwise. */
  async run(): Promise<RawResponse> {
    for (;;) {
      this.#attempts++;
      const next = await this.#classify(await this.#send());
      if ("answer" in next) return next.answer;
      if ("retry" in next) await this.#wait(next.retry, next.unanswered);
    }
  }

  /**
   * Send: one attempt, reported. A stop cancels it until its first byte goes out (also while the token
   * is fetched); after that only a read is abandoned, since a write's bytes cannot be taken back.
   */
  async #send(): Promise<Sent> {
    const { method, path, headers, body, operation } = this.#call;
    const { token: credentials, basePath } = this.#ctx;
    this.#cancelIfStopped();
    const token = typeof credentials === "string" ? credentials : checkToken(await credentials.current(this.#stop));
    if (token !== "") headers.authorization = `Bearer ${token}`;
    this.#cancelIfStopped();
    const started = performance.now();
    const report = (outcome: { status: number } | { failure: string }) =>
      this.#ctx.onAttempt?.({ operation, method, path, attempt: this.#attempts, ...outcome, durationMs: Math.round(performance.now() - started) });
    try {
      const res = await this.#ctx.send({ method, path: basePath + path, headers, body }, this.#reads ? this.#stop : undefined);
      report({ status: res.status });
      return { res, token };
    } catch (err) {
      if (!(err instanceof AttemptFailure)) throw err;
      report({ failure: errorCode(err.error) ?? err.kind });
      return { failure: err };
    }
  }

  #cancelIfStopped(): void {
    if (this.#stop?.aborted) throw this.#networkError("aborted", this.#attempts - 1, this.#stop.reason);
  }

  /** Classify: what an attempt's answer or failure means for the call. */
  async #classify(sent: Sent): Promise<Next> {
    if ("failure" in sent) return this.#classifyFailure(sent.failure);
    const { res } = sent;
    if (res.status >= 200 && res.status < 300) return { answer: res };
    if (await this.#refreshedFor(res, sent.token)) return { again: true };
    this.#finishIfActed({ status: res.status });
    const decision = this.#decide({ status: res.status }, res.headers["retry-after"]);
    if (!decision.retry) throw await this.#refuse(res, decision);
    const attempts = this.#attempts;
    return { retry: this.#retryEvent(decision.delayMs, String(res.status)), unanswered: () => this.#apiError(res, `stopped after ${attempts} attempts`) };
  }

  /** No answer came: retried per the policy, or the NetworkError saying what to check. */
  #classifyFailure(failure: AttemptFailure): Next {
    this.#finishIfActed({ failure: failure.kind });
    const decision = this.#decide({ failure: failure.kind });
    const attempts = this.#attempts;
    const unanswered = () => {
      const code = errorCode(failure.error);
      const detail = failure.kind === "timeout" ? `no complete answer within ${this.#ctx.timeoutMs} ms` : this.#unreachable(failure.kind, code);
      return this.#networkError(failure.kind, attempts, failure.error, detail);
    };
    if (!decision.retry) throw unanswered();
    return { retry: this.#retryEvent(decision.delayMs, errorCode(failure.error) ?? failure.kind), unanswered };
  }

  /**
   * A 401 to credentials that can renew: true when a fresh token is now current, so the call is repeated
   * at once, once per call (a second 401 is the answer). A 401 means the API did nothing: even a create may be.
   */
  async #refreshedFor(res: RawResponse, token: string): Promise<boolean> {
    const credentials = this.#ctx.token;
    if (res.status !== 401 || typeof credentials === "string" || this.#refreshed) return false;
    if (!(await credentials.refresh(token, this.#stop))) return false;
    this.#refreshed = true;
    return true;
  }

  #decide(outcome: Outcome, retryAfter?: string | string[]): RetryDecision {
    const { method, idempotent } = this.#call;
    const input = { method, outcome, attempts: this.#attempts, retryAfter, idempotent, elapsedMs: this.#elapsed() };
    return decideRetry(input, this.#ctx.policy, this.#ctx.now(), this.#ctx.random);
  }

  #elapsed(): number {
    return Math.max(performance.now() - this.#began, this.#waited);
  }

  #retryEvent(delayMs: number, reason: string): RetryEvent {
    const { operation, method, path } = this.#call;
    return { operation, method, path, attempt: this.#attempts, delayMs, reason };
  }

  /**
   * Finish a write: once a write may have taken effect (a 5xx, or no complete answer after its bytes went
   * out), the stop no longer cancels it; the stop it had (kept) only ends its waits. A 4xx or a connection
   * never made left nothing behind: such a write stays cancellable. Reads are always cancellable.
   */
  #finishIfActed(outcome: Outcome): void {
    if (this.#reads || this.#finishing !== undefined || !writeMayHaveActed(outcome)) return;
    this.#finishing = this.#stop ?? NEVER;
    this.#stop = undefined;
  }

  /**
   * Wait before the next attempt (reported first), counted into the budget. A stop ends the wait: the call
   * is cancelled, unless it is a write being finished, which is then repeated once at once (only writes
   * safe to repeat are retried) to learn what the API made of it, and fails with `unanswered` after that.
   */
  async #wait(event: RetryEvent, unanswered: () => Error): Promise<void> {
    if (this.#lastAttempt) throw unanswered();
    const signal = this.#stop ?? this.#finishing;
    if (await this.#pause(event, signal)) {
      this.#waited += event.delayMs;
      return;
    }
    if (this.#finishing === undefined) throw this.#networkError("aborted", event.attempt, signal?.reason);
    this.#lastAttempt = true;
  }

  /** Reports and waits out a retry's delay; false when the signal ended (or had ended) the wait. */
  async #pause(event: RetryEvent, signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return false;
    this.#ctx.onRetry?.(event);
    try {
      await this.#ctx.sleep(event.delayMs, signal);
    } catch (err) {
      if (signal?.aborted) return false;
      throw err;
    }
    return !signal?.aborted;
  }

  /**
   * Refuse: the ApiError an answer not retried ends the call with, its note saying why it stopped there. A 404
   * means "no such object" only from the API itself: the root is proven first (once per client), and a
   * delete being finished, which learns from this 404 that it went through, has that check not cancelled either.
   */
  async #refuse(res: RawResponse, decision: Extract<RetryDecision, { retry: false }>): Promise<Error> {
    const { basePath, policy } = this.#ctx;
    const answered = { status: res.status, attempts: this.#attempts, elapsedMs: this.#elapsed(), basePath };
    const { note, retryAfterMs } = refusalNote(decision, answered, policy);
    const apiError = this.#apiError(res, note, retryAfterMs);
    if (res.status === 404 && this.#call.notFound === "not-the-api") return this.#ctx.notTheApi(apiError);
    if (res.status === 404 && this.#call.notFound === "confirm-root") await this.#ctx.confirmRoot(this.#stop ?? null);
    return apiError;
  }

  #apiError(res: RawResponse, note?: string, retryAfterMs?: number): ApiError {
    const acceptedScopes = header(res.headers, "x-accepted-oauth-scopes");
    const { method, path } = this.#call;
    return new ApiError({
      status: res.status,
      method,
      path,
      errors: errorItems(res),
      attempts: this.#attempts,
      retryAfterMs,
      note,
      ...(acceptedScopes ? { acceptedScopes } : {}),
    });
  }

  #networkError(kind: FailureKind, attempts: number, cause?: unknown, detail?: string): NetworkError {
    const { method, path } = this.#call;
    return new NetworkError({ kind, method, path, origin: this.#ctx.origin, code: errorCode(cause), attempts, cause, detail });
  }

  /** What to check when nothing answered at the URL: a refused connection or a host name that does not resolve. */
  #unreachable(kind: FailureKind, code: string | undefined): string | undefined {
    const refused = kind === "connect" || code === "ENOTFOUND";
    if (!refused) return undefined;
    const host = new URL(this.#ctx.origin).hostname;
    const local = host === "localhost" || host === "::1" || host === "[::1]" || host.startsWith("127.");
    const url = this.#ctx.origin + this.#ctx.basePath;
    return code === "ENOTFOUND"
      ? `the host name "${host}" does not resolve; check the API URL`
      : `nothing answers at ${url}; check the API URL${local ? ", or start the local API (`mgmt serve`)" : " and that the API is reachable from here"}`;
  }
}
