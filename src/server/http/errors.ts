/**
 * Every failure becomes the contract's error body, with a status code: domain errors by
 * kind, request-shape errors (zod issues) as 400 naming the dotted field path, framework
 * errors (bad JSON, wrong content type, oversized body...) as 4xx JSON, anything else as a
 * logged 500. Nothing here ever answers HTML or echoes a request header.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { STATUS_CODES } from "node:http";
import type { z } from "zod";
import { ErrorBody, type ErrorItem } from "../../contract";
import { DomainError, type ErrorKind } from "../domain/errors";
import type { Logger } from "../logger";

/** An HTTP-only failure: routing and protocol, not domain rules. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly items: ErrorItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(items.map((i) => i.reason).join("; "));
    this.name = "HttpError";
  }
}

const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
};

export const NOT_FOUND_BODY: ErrorBody = { errors: [{ reason: "Not found" }] };
const INTERNAL_ERROR: ErrorBody = { errors: [{ reason: "Internal server error" }] };

export const methodNotAllowed = (allowed: string[]): HttpError => new HttpError(405, [{ reason: "Method not allowed" }], { allow: allowed.join(", ") });

/** zod issues as contract error items: the path joined with dots is the field. */
export function issuesToItems(issues: readonly z.core.$ZodIssue[], what = "Request body"): ErrorItem[] {
  return issues.map((issue) => {
    const field = issue.path.map(String).join(".");
    // JSON has no undefined: an undefined input is an absent field.
    const missing = issue.code === "invalid_type" && issue.input === undefined;
    if (field === "") {
      return { reason: missing ? `${what} is required` : issue.code === "invalid_type" ? `${what} must be a JSON object` : issue.message };
    }
    // A query parameter given twice arrives as an array; zod's own words would be about types.
    const repeated = what === "Query" && issue.code === "invalid_type" && Array.isArray(issue.input);
    return { field, reason: missing ? `${field} is required` : repeated ? `${field} must be given only once` : issue.message };
  });
}

/** Parses request input with a contract schema; failures are a 400 naming each field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what?: string): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw new DomainError("invalid", issuesToItems(result.error.issues, what));
  return result.data;
}

/** Fastify's own request errors, by code: status and the reason we answer. */
const FRAMEWORK_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, "Request body is not valid JSON"],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, "Request body is empty but Content-Type is application/json"],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [400, "Content-Type must be application/json"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, "Content-Length does not match the request body"],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, "Request body is too large"],
  FST_ERR_BAD_URL: [404, "Not found"],
};

/** A UTF-16 surrogate that is not half of a pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Error items echo what the client sent (a field's path names its keys), and a key may hold a
 * lone surrogate (`{"a\ud800": 1}`, refused for it) that JSON.stringify would write as an
 * escape strict parsers reject. Each one is put as U+FFFD, so every error body is valid Unicode.
 */
function wellFormed(items: readonly ErrorItem[]): ErrorItem[] {
  const fix = (text: string) => text.replace(LONE_SURROGATE, "\ufffd");
  return items.map((item) => (typeof item.field === "string" ? { field: fix(item.field), reason: fix(item.reason) } : { ...item, reason: fix(item.reason) }));
}

/**
 * A store that cannot write, by the drivers' codes (SQLite's, Postgres's SQLSTATE): out of space is 507, read-only
 * 503, each saying so, instead of a generic 500. The transaction failed as a whole, so nothing of it was written.
 */
function storeFailure(err: unknown): [number, string] | undefined {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  if (code === "SQLITE_FULL" || code === "53100") return [507, "The server's store is out of space; nothing was written"];
  if (code === "SQLITE_READONLY" || (typeof code === "string" && code.startsWith("SQLITE_READONLY_")) || code === "25006")
    return [503, "The server's store is read-only; nothing was written"];
  return undefined;
}

export function errorResponse(err: unknown): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (err instanceof DomainError) return { status: STATUS_OF[err.kind], body: { errors: wellFormed(err.items) }, headers: {} };
  if (err instanceof HttpError) return { status: err.status, body: { errors: wellFormed(err.items) }, headers: err.headers };
  const fe = err as Partial<FastifyError>;
  const known = fe.code === undefined ? undefined : FRAMEWORK_ERRORS[fe.code];
  if (known !== undefined) return { status: known[0], body: { errors: [{ reason: known[1] }] }, headers: {} };
  // The JSON parser reports bad syntax (and prototype poisoning) as a plain 400 error;
  // other framework 4xx (such as 414 for an overlong path segment) keep their status.
  if (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500) {
    const reason = err instanceof SyntaxError ? "Request body is not valid JSON" : (STATUS_CODES[fe.statusCode] ?? "Bad request");
    return { status: fe.statusCode, body: { errors: [{ reason }] }, headers: {} };
  }
  const store = storeFailure(err);
  if (store !== undefined) return { status: store[0], body: { errors: [{ reason: store[1] }] }, headers: {} };
  return { status: 500, body: INTERNAL_ERROR, headers: {} };
}

export function makeErrorHandler(logger: Logger) {
  return (err: unknown, req: FastifyRequest, reply: FastifyReply): void => {
    const response = errorResponse(err);
    // Error bodies go through the contract schema like every other answer.
    const shaped = ErrorBody.safeParse(response.body);
    const status = shaped.success ? response.status : 500;
    if (status >= 500) {
      logger.error(status === 500 ? "unhandled error" : "store cannot write", {
        method: req.method,
        url: req.url,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    }
    void reply
      .code(status)
      .headers(shaped.success ? response.headers : {})
      .send(shaped.success ? shaped.data : INTERNAL_ERROR);
  };
}
