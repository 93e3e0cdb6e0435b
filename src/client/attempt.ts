/**
 * One attempt on the wire: a single request through the dispatcher under its own timer, and what came
 * back, an answer (any status) or an AttemptFailure sorted by ./retry. No retry and no policy here:
 * ./exchange decides what an attempt's outcome means.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Dispatcher } from "undici";
import { classifyError, type FailureKind } from "./retry";
import type { Method } from "./call";

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly bytes: Buffer;
  readonly text: string;
}

/** What an attempt sends; `path` is the full path from the origin (the API root's path included). */
export interface WireRequest {
  readonly method: Method;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | undefined;
}

/** An attempt that brought no answer: why, and the transport's error (none for a timeout). */
export class AttemptFailure {
  constructor(
    readonly kind: FailureKind,
    readonly error: unknown,
  ) {}
}

/** Sends one request; `signal` (a read's stop) may abandon it in flight. Throws only AttemptFailure. */
export type SendAttempt = (request: WireRequest, signal: AbortSignal | undefined) => Promise<RawResponse>;

export function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { code?: unknown; errors?: unknown };
  if (typeof e.code === "string") return e.code;
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  return undefined;
}

export function header(headers: RawResponse["headers"], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function checkToken(token: string): string {
  if (typeof token !== "string" || !/^[\x21-\x7e]*$/.test(token)) throw new TypeError("API token must be a string of visible ASCII characters");
  return token;
}

/** The attempt of a client whose dispatcher serves `origin`, each within `timeoutMs`. */
export function attemptVia(dispatcher: Dispatcher, origin: string, timeoutMs: number): SendAttempt {
  return async (request, signal) => {
    const controller = new AbortController();
    const timedOut = new Error("attempt timed out");
    const timer = setTimeout(() => controller.abort(timedOut), timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const res = await dispatcher.request({
        origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      // The Pool marks the connection free only later in this turn of the event loop: a request
      // made at once (the next page, the read after the credentials check) would open another
      // connection, a TLS handshake more, so the answer is handed on from the next turn.
      await nextTurn();
      return { status: res.statusCode, headers: res.headers, bytes, text: bytes.toString("utf8") };
    } catch (err) {
      if (controller.signal.aborted) {
        throw new AttemptFailure(controller.signal.reason === timedOut ? "timeout" : "aborted", controller.signal.reason === timedOut ? undefined : err);
      }
      throw new AttemptFailure(classifyError(err), err);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  };
}
