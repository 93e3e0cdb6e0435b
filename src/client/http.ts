/**
 * The client's HTTP side: one undici Pool for the API's origin, what a call sends (`requestOf`), its
 * attempts handed to an Exchange (./exchange: retries per ./retry, stops, token refresh), the root
 * probe, and parsing of every body with a contract schema.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { SecureContext } from "node:tls";
import { Pool, type Dispatcher } from "undici";
import type { z } from "zod";
import { version } from "../../package.json";
import { attemptVia, checkToken, header, type RawResponse } from "./attempt";
import type { AttemptEvent, CallOptions, Credentials, Method, Query, RetryEvent, Sleep } from "./call";
import { ApiError, ApiRootError, ResponseShapeError, type ShapeIssue } from "./errors";
import { Exchange, type ExchangeContext } from "./exchange";
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, backoffDelay, withinBudget, type RetryPolicy } from "./retry";

export const DEFAULT_USER_AGENT = `terraform-provider-mgmt/${version}`;
export const DEFAULT_CONNECTIONS = 16;

export interface HttpOptions {
  /** API root including the version, e.g. `http://127.0.0.1:8080/v4` (trailing slash optional). */
  readonly url: string;
  readonly token: string | Credentials;
  readonly userAgent?: string;
  /** Per attempt; default 60 s. */
  readonly timeoutMs?: number;
  /** Shorthand for retry.maxRetries (default: no cap on the count; retries end 5 minutes into the operation). */
  readonly maxRetries?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Waits between attempts; injectable so tests record delays instead of waiting. */
  readonly sleep?: Sleep;
  /** Clock (ms since epoch) for HTTP-date Retry-After. */
  readonly now?: () => number;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
  /** Use this dispatcher (not closed by close()) instead of an own Pool. */
  readonly dispatcher?: Dispatcher;
  /** Pool size when the client makes its own Pool; default 16. */
  readonly connections?: number;
  /** TLS trust for an https API when the client makes its own Pool; default node's. */
  readonly secureContext?: SecureContext;
  readonly onRetry?: (event: RetryEvent) => void;
  readonly onAttempt?: (event: AttemptEvent) => void;
  /** Cancels every call that does not bring its own signal (the provider's "stop"), as CallOptions.signal says. */
  readonly signal?: AbortSignal;
  /**
   * A request any valid token may make, whose answer proves the URL leads to the API. Before a
   * 404 is reported as such, the client makes it once: a 404 from a URL that is not the API's
   * root (no `/v4`, another server) says nothing about the object, and a caller that took it
   * for "gone" would drop the object from its records.
   */
  readonly rootProbe?: { readonly path: string; readonly schema: z.ZodType };
}

export interface RequestSpec<S extends z.ZodType> extends CallOptions {
  /** Client operation name, used in error messages (`getSshKey`). */
  readonly operation: string;
  readonly method: Method;
  /** Relative to the API root, starting with `/` (use `route` to build it). */
  readonly path: string;
  readonly query?: Query;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Sent as they are, with their own content type (thumbnails); excludes `body`. */
  readonly rawBody?: { readonly contentType: string; readonly data: Uint8Array };
  /** Schema the success body must match. */
  readonly schema: S;
  readonly headers?: Readonly<Record<string, string>>;
  /** Safe to repeat although its method is not (a reset whose latest answer is the one that counts). */
  readonly idempotent?: boolean;
}

/**
 * Builds a path, percent-encoding every interpolated value:
 * route`/profile/sshkeys/${id}`. Numbers must be integers; strings must be non-empty and not
 * `.`/`..`, so a missing id can never turn a single-item path into the collection's path.
 */
export function route(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v)) throw new TypeError(`path parameter must be an integer, got ${v}`);
    } else if (v === "" || v === "." || v === "..") {
      throw new TypeError(`path parameter must be a non-empty name, got '${v}'`);
    }
    out += encodeURIComponent(String(v)) + (strings[i + 1] ?? "");
  });
  return out;
}

function queryString(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s === "" ? "" : `?${s}`;
}

function parseBaseUrl(url: string): { origin: string; basePath: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`API url is not a valid URL: '${url}'`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError(`API url must be http or https, got '${parsed.protocol}'`);
  }
  // Never echo the URL here: credentials in it would be secrets.
  if (parsed.username !== "" || parsed.password !== "") throw new TypeError("API url must not contain credentials; pass the token instead");
  if (parsed.search !== "" || parsed.hash !== "") throw new TypeError("API url must not contain a query or fragment");
  return { origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, "") };
}

/** A successful answer that is not JSON (an image). */
export interface BinaryResponse {
  readonly contentType: string;
  readonly data: Buffer;
}

/**
 * What a call sends, before any attempt: the path with its query, the body (JSON, or raw bytes with
 * their own content type) and the headers (the caller's over accept and user-agent; the bearer is
 * added per attempt). Refuses a path not under the root and a call with both kinds of body.
 */
export function requestOf(
  spec: Pick<RequestSpec<z.ZodType>, "path" | "query" | "body" | "rawBody" | "headers">,
  userAgent: string,
): { path: string; body: string | Uint8Array | undefined; headers: Record<string, string> } {
  if (!spec.path.startsWith("/")) throw new TypeError(`path must start with '/': ${spec.path}`);
  if (spec.body !== undefined && spec.rawBody !== undefined) throw new TypeError("a request has a JSON body or a raw body, not both");
  const path = spec.path + queryString(spec.query);
  const body = spec.rawBody !== undefined ? spec.rawBody.data : spec.body === undefined ? undefined : JSON.stringify(spec.body);
  const headers: Record<string, string> = {
    accept: "application/json",
    "user-agent": userAgent,
    ...spec.headers,
  };
  if (spec.rawBody !== undefined) headers["content-type"] = spec.rawBody.contentType;
  else if (body !== undefined) headers["content-type"] = "application/json";
  return { path, body, headers };
}

function shapeIssues(error: z.ZodError): ShapeIssue[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join("."), message: i.message }));
}

export class HttpClient {
  readonly origin: string;
  readonly basePath: string;
  readonly userAgent: string;
  readonly timeoutMs: number;
  readonly policy: RetryPolicy;
  // Private fields stay out of util.inspect / JSON: the token never shows in a log.
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #sleep: Sleep;
  readonly #random: () => number;
  readonly #signal: AbortSignal | undefined;
  /** What every call's exchange shares; it holds the token. */
  readonly #context: ExchangeContext;
  readonly #rootProbe: HttpOptions["rootProbe"];
  #root: Promise<unknown> | undefined;

  constructor(opts: HttpOptions) {
    const { origin, basePath } = parseBaseUrl(opts.url);
    if (typeof opts.token === "string") checkToken(opts.token);
    else if (typeof opts.token?.current !== "function") throw new TypeError("API token must be a string or credentials");
    this.origin = origin;
    this.basePath = basePath;
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new TypeError("timeoutMs must be positive");
    this.policy = { ...DEFAULT_RETRY_POLICY, ...opts.retry, ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}) };
    const { maxRetries } = this.policy;
    if (!(Number.isInteger(maxRetries) || maxRetries === Number.POSITIVE_INFINITY) || maxRetries < 0)
      throw new TypeError("maxRetries must be a non-negative integer");
    this.#rootProbe = opts.rootProbe;
    this.#sleep = opts.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.#random = opts.random ?? Math.random;
    this.#signal = opts.signal;
    if (opts.dispatcher) {
      this.#dispatcher = opts.dispatcher;
      this.#ownsDispatcher = false;
    } else {
      this.#dispatcher = new Pool(origin, {
        connections: opts.connections ?? DEFAULT_CONNECTIONS,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        connect: { timeout: Math.min(this.timeoutMs, 10_000), ...(opts.secureContext ? { secureContext: opts.secureContext } : {}) },
      });
      this.#ownsDispatcher = true;
    }
    this.#context = {
      origin,
      basePath,
      timeoutMs: this.timeoutMs,
      policy: this.policy,
      token: opts.token,
      signal: opts.signal,
      send: attemptVia(this.#dispatcher, origin, this.timeoutMs),
      sleep: this.#sleep,
      now: opts.now ?? Date.now,
      random: this.#random,
      onRetry: opts.onRetry,
      onAttempt: opts.onAttempt,
      confirmRoot: (signal) => this.confirmRoot(signal),
      notTheApi: (err) => this.#notTheApi(err) ?? err,
    };
  }

  /** The API root's URL, as given (origin and path, no trailing slash). */
  get url(): string {
    return this.origin + this.basePath;
  }

  /**
   * Makes the root probe once per client (again after a failure) and answers its parsed body;
   * throws ApiRootError when the URL does not answer as the API, or the probe's own error (a
   * 401 for a wrong token, a NetworkError...).
   */
  confirmRoot(signal?: AbortSignal | null): Promise<unknown> {
    const probe = this.#rootProbe;
    if (probe === undefined) return Promise.resolve(undefined);
    this.#root ??= this.#probe(probe, signal).catch((err: unknown) => {
      this.#root = undefined;
      throw err;
    });
    return this.#root;
  }

  async #probe(probe: NonNullable<HttpOptions["rootProbe"]>, signal: AbortSignal | null | undefined): Promise<unknown> {
    try {
      const { res, path } = await this.#exchange({ operation: "checkApiRoot", method: "GET", path: probe.path, signal }, true);
      return this.#decode({ operation: "checkApiRoot", method: "GET", path: probe.path, schema: probe.schema }, path, res);
    } catch (err) {
      throw this.#notTheApi(err) ?? err;
    }
  }

  /** The probe's failure as "this URL is not the API", when it says so: a refusal other than for the token, or an answer not shaped as the API's. */
  #notTheApi(err: unknown): ApiRootError | undefined {
    const answered =
      err instanceof ResponseShapeError
        ? `answered ${err.status} with a body that is not the API's`
        : err instanceof ApiError && err.status < 500 && err.status !== 401 && err.status !== 403 && err.status !== 429
          ? `answered [${err.status}] ${err.errors.map((e) => e.reason).join("; ")}`
          : undefined;
    if (answered === undefined) return undefined;
    const probe = this.#rootProbe!.path;
    return new ApiRootError({ url: this.url, origin: this.origin, probe: `GET ${probe}`, answered, cause: err });
  }

  /** Sends the request (retrying per the policy) and returns the body parsed by `spec.schema`. */
  async request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    const { res, path } = await this.#exchange(spec);
    return this.#decode(spec, path, res);
  }

  /** Like `request`, for an answer that is not JSON: its bytes and content type. */
  async requestBytes(spec: Omit<RequestSpec<z.ZodType>, "schema">): Promise<BinaryResponse> {
    const { res } = await this.#exchange(spec);
    return { contentType: header(res.headers, "content-type") ?? "application/octet-stream", data: res.bytes };
  }

  /** The call's exchange (./exchange): resolves with a 2xx response, throws ApiError or NetworkError otherwise. */
  async #exchange(spec: Omit<RequestSpec<z.ZodType>, "schema">, probing = false): Promise<{ res: RawResponse; path: string }> {
    const { path, body, headers } = requestOf(spec, this.userAgent);
    const probe = this.#rootProbe;
    const notFound = probing || probe === undefined ? "answer" : spec.path === probe.path ? "not-the-api" : "confirm-root";
    const { operation, method, signal, idempotent } = spec;
    const res = await new Exchange(this.#context, { operation, method, path, body, headers, signal, idempotent, notFound }).run();
    return { res, path };
  }

  /**
   * Waits the back-off before the n-th retry (1-based) of something the caller repeats itself,
   * `elapsedMs` into it, and resolves with the delay; undefined, without waiting (further), when
   * the retry would start past the policy's budget (count or time) or the signal (default: the
   * client's) ends the wait: no retry either way.
   */
  async backoff(retry: number, signal?: AbortSignal, elapsedMs = 0): Promise<number | undefined> {
    const delayMs = backoffDelay(retry, this.policy, this.#random);
    if (retry > this.policy.maxRetries || !withinBudget(elapsedMs, delayMs, this.policy)) return undefined;
    const stop = signal ?? this.#signal;
    if (stop?.aborted) return undefined;
    try {
      await this.#sleep(delayMs, stop);
    } catch (err) {
      if (stop?.aborted) return undefined;
      throw err;
    }
    return stop?.aborted ? undefined : delayMs;
  }

  /** Closes the own Pool (a dispatcher passed in is left to its owner). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #decode<S extends z.ZodType>(spec: RequestSpec<S>, path: string, res: RawResponse): z.output<S> {
    const where = { operation: spec.operation, method: spec.method, path, status: res.status };
    let value: unknown;
    if (res.text.trim() === "") {
      value = undefined;
    } else {
      try {
        value = JSON.parse(res.text);
      } catch {
        // Say what came back, not what it contained: a body may hold a secret.
        const type = header(res.headers, "content-type") ?? "no content-type";
        throw new ResponseShapeError({
          ...where,
          summary: "response body is not JSON",
          issues: [{ field: "", message: `${type}, ${Buffer.byteLength(res.text)} bytes` }],
        });
      }
    }
    const parsed = spec.schema.safeParse(value);
    if (parsed.success) return parsed.data;
    if (value === undefined) {
      throw new ResponseShapeError({ ...where, summary: "response body is empty", issues: [{ field: "", message: "expected a JSON body" }] });
    }
    throw new ResponseShapeError({ ...where, issues: shapeIssues(parsed.error) });
  }
}
