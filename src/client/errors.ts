/**
 * The errors the client raises. Each names the request (`METHOD /path` relative to the API root)
 * and never the token: messages carry no header and no response value that could hold a secret.
 *
 * - ApiError: the server answered with an error status (4xx/5xx), body parsed as `{errors:[...]}`.
 * - NetworkError: no usable answer (connection refused or lost, timeout, cancelled).
 * - ResponseShapeError: a success status whose body does not match the contract.
 */
import type { FailureKind } from "./retry";

export interface ApiErrorItem {
  readonly field?: string | null;
  readonly reason: string;
}

/** `label: Length must be...; other reason` */
export function formatErrorItems(items: readonly ApiErrorItem[]): string {
  return items.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join("; ");
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly method: string;
  /** Path relative to the API root, with the query string (`/profile/sshkeys/3`). */
  readonly path: string;
  /** The body's `errors`, or one item describing a body that was not an error body. */
  readonly errors: readonly ApiErrorItem[];
  /** Requests made, retries included. */
  readonly attempts: number;
  /** What the response's Retry-After asked for, when it had one. */
  readonly retryAfterMs: number | undefined;
  /** The scopes the operation accepts (X-Accepted-OAuth-Scopes), when the API says. */
  readonly acceptedScopes: string | undefined;

  constructor(init: {
    status: number;
    method: string;
    path: string;
    errors: readonly ApiErrorItem[];
    attempts?: number;
    retryAfterMs?: number;
    acceptedScopes?: string;
    note?: string;
  }) {
    const note = init.note ? ` (${init.note})` : "";
    super(`${init.method} ${init.path}: [${init.status}] ${formatErrorItems(init.errors)}${note}`);
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.errors = init.errors;
    this.attempts = init.attempts ?? 1;
    this.retryAfterMs = init.retryAfterMs;
    this.acceptedScopes = init.acceptedScopes;
  }

  /** The reasons given for `field` (exact match), e.g. to attach them to an attribute. */
  reasonsFor(field: string): string[] {
    return this.errors.filter((e) => e.field === field).map((e) => e.reason);
  }
}

export type NetworkErrorKind = FailureKind;

const KIND_TEXT: Record<NetworkErrorKind, string> = {
  connect: "could not connect",
  network: "connection lost",
  timeout: "timed out",
  aborted: "cancelled",
  fatal: "request failed",
};

export class NetworkError extends Error {
  override readonly name = "NetworkError";
  readonly kind: NetworkErrorKind;
  /** The system or undici error code (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, ...). */
  readonly code: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;

  constructor(init: {
    kind: NetworkErrorKind;
    method: string;
    path: string;
    origin: string;
    code?: string;
    attempts: number;
    detail?: string;
    cause?: unknown;
  }) {
    const code = init.code ? ` (${init.code})` : "";
    const detail = init.detail ? `: ${init.detail}` : "";
    const tries = init.attempts > 1 ? ` after ${init.attempts} attempts` : "";
    super(`${init.method} ${init.path}: ${KIND_TEXT[init.kind]}${code} to ${init.origin}${tries}${detail}`, { cause: init.cause });
    this.kind = init.kind;
    this.code = init.code;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
  }
}

/**
 * The URL does not lead to the API: its root probe (a request any valid token may make) was
 * refused as no route, or answered with something other than the API's shape. A 404 met
 * before this was found out says nothing about the object, so it is reported as this instead.
 */
export class ApiRootError extends Error {
  override readonly name = "ApiRootError";
  /** The API root as configured (origin and path; a URL with credentials is refused earlier). */
  readonly url: string;

  constructor(init: { url: string; origin: string; probe: string; answered: string; cause?: unknown }) {
    const path = init.url.slice(init.origin.length);
    const fix = /\/v4(beta)?$/.test(path)
      ? `Check that it is the Management API's root, such as ${init.origin}/v4 as \`mgmt serve\` prints it`
      : `The API root ends in its version: use ${init.origin}/v4, as \`mgmt serve\` prints it`;
    super(`${init.url} does not answer as the Management API (${init.probe} ${init.answered}), so its 404s cannot mean an object is gone. ${fix}.`, {
      cause: init.cause,
    });
    this.url = init.url;
  }
}

export interface ShapeIssue {
  /** Dotted path into the body (`data.2.created`); "" for the body itself. */
  readonly field: string;
  readonly message: string;
}

export class ResponseShapeError extends Error {
  override readonly name = "ResponseShapeError";
  /** Client operation (`getSshKey`). */
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly issues: readonly ShapeIssue[];

  constructor(init: { operation: string; method: string; path: string; status: number; issues: readonly ShapeIssue[]; summary?: string }) {
    const shown = init.issues.slice(0, 5).map((i) => (i.field ? `${i.field}: ${i.message}` : i.message));
    if (init.issues.length > 5) shown.push(`and ${init.issues.length - 5} more`);
    const summary = init.summary ?? "response body does not match the contract";
    super(`${init.operation}: ${init.method} ${init.path} [${init.status}]: ${summary}: ${shown.join("; ")}`);
    this.operation = init.operation;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.issues = init.issues;
  }
}

export function hasStatus(err: unknown, ...statuses: number[]): err is ApiError {
  return err instanceof ApiError && statuses.includes(err.status);
}

/** The resource does not exist (404): for reads, drop it from state; for deletes, already gone. */
export function isNotFound(err: unknown): err is ApiError {
  return hasStatus(err, 404);
}

export function isTimeout(err: unknown): err is NetworkError {
  return err instanceof NetworkError && err.kind === "timeout";
}

/** The call's result, or null when the API says the object does not exist (404): gone is an answer, not a failure. */
export async function orNullIfGone<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}
