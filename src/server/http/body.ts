/**
 * How request bodies are read, so that what widely used clients send is understood and no
 * body can reach a store it would break:
 *
 * - A request that carries no body is a bodiless request, whatever its `Content-Type` says
 *   (clients send `application/x-www-form-urlencoded` or `application/json` with
 *   `Content-Length: 0`, or a DELETE with a content type and no body at all). An empty JSON
 *   body (chunked, zero bytes) is no body either, whatever its content type. An operation that
 *   takes a body then answers "Request body is required"; one that takes none simply runs.
 * - An operation that takes no body ignores whatever body and content type it is sent (the
 *   upstream JS SDK sends a child account's euuid form-encoded on the bodiless token mint):
 *   the bytes are read, within the size limit, and dropped (`ignoreBody`).
 * - A body that is there, on an operation that reads one, must be JSON: any other content
 *   type with bytes is refused (400).
 * - JSON deeper than `MAX_JSON_DEPTH` is refused before it is parsed (a 400 naming the body):
 *   the schema checks and stores walk bodies recursively.
 * - A NUL character in any string or key of a body is refused with a 400 naming the field:
 *   Postgres cannot store one in text or jsonb, and SQLite would keep what Postgres refuses,
 *   so both stores answer alike. So is a lone UTF-16 surrogate (`"\ud800"`, valid JSON but
 *   no character): each store would turn it into different replacement characters. So are
 *   bytes that are not UTF-8: decoding would store U+FFFD in place of what the client sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { isUtf8 } from "node:buffer";
import { invalid } from "../domain/errors";
import { HttpError } from "./errors";

/** Deepest nesting of arrays and objects accepted in a JSON body. */
export const MAX_JSON_DEPTH = 64;

export const tooDeep = () => invalid(null, `Request body is nested more than ${MAX_JSON_DEPTH} levels deep`);

/** Whether `text`, read as JSON, nests arrays and objects deeper than `max` (strings skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** What no stored text may hold: NUL, and a surrogate that is not half of a pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface BadText {
  /** The dotted path of the string or key ("" for the body itself). */
  field: string;
  problem: "nul" | "surrogate";
}

const badText = (text: string): BadText["problem"] | null => (text.includes("\u0000") ? "nul" : LONE_SURROGATE.test(text) ? "surrogate" : null);

/** The first string or key of `value` that no store can keep as sent, or null. */
export function findBadText(value: unknown, path: string[] = []): BadText | null {
  if (typeof value === "string") {
    const problem = badText(value);
    return problem === null ? null : { field: path.join("."), problem };
  }
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBadText(value[i], [...path, String(i)]);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    const problem = badText(key);
    if (problem !== null) return { field: [...path, key].join("."), problem };
    const found = findBadText(inner, [...path, key]);
    if (found !== null) return found;
  }
  return null;
}

/** What a decoder puts for bytes that are not UTF-8, and what valid UTF-8 bytes of it look like. */
const REPLACEMENT = /\ufffd/g;
const REPLACEMENT_BYTES = Buffer.from("\ufffd");

/**
 * The refusal of a JSON body that is not UTF-8, naming the field that holds the bad bytes when
 * that can be told: each replacement character the decoder put in is swapped for a lone
 * surrogate (which no UTF-8 text decodes to) and the result parsed; the field found is named
 * with U+FFFD again in its place. When the body also holds
 * a real U+FFFD, or does not parse, the refusal names the body.
 */
export function notUtf8Refusal(bytes: Buffer, decoded: string) {
  let field: string | null = null;
  if (!bytes.includes(REPLACEMENT_BYTES)) {
    try {
      field = findBadText(JSON.parse(decoded.replace(REPLACEMENT, "\udfff")))?.field ?? null;
    } catch {
      // Not JSON once decoded: only the body can be named.
    }
  }
  if (field === null || field === "") return invalid(null, "Request body must be valid UTF-8");
  // The field is named as decoded, U+FFFD for each bad sequence: the stand-in surrogates would
  // make the error body itself invalid Unicode.
  const named = field.replace(/\udfff/g, "\ufffd");
  return invalid(named, `${named} must be valid UTF-8 text`);
}

/** A body of a content type no route reads: nothing at all is no body; anything else is refused. */
const notJson = () => new HttpError(400, [{ reason: "Content-Type must be application/json" }]);

export function badTextRefusal({ field, problem }: BadText) {
  const what = problem === "nul" ? "must not contain NUL characters" : "must be valid Unicode text (it has a lone surrogate)";
  return field === "" ? invalid(null, `Request body ${what}`) : invalid(field, `${field} ${what}`);
}

/** The content type `ignoreBody` gives a body no operation reads: its parser drops the bytes. */
const IGNORED_BODY = "application/x-mgmt-ignored-body";

/**
 * For an operation that takes no body: whatever body the request carries, under whatever
 * content type (even one that does not parse), is read and dropped. A route's `onRequest`
 * hook, so it runs before Fastify looks at the content type; `readIgnoredBodies` must have
 * been called on the app.
 */
export function ignoreBody(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const headers = req.raw.headers;
  // A request with neither a length nor a transfer coding has no body (see installBodyConventions).
  if (headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined) headers["content-type"] = IGNORED_BODY;
  done();
}

/** Lets `ignoreBody` work on `app`: its bodies are read (within the size limit) and dropped. */
export function readIgnoredBodies(app: FastifyInstance): void {
  if (!app.hasContentTypeParser(IGNORED_BODY)) app.addContentTypeParser(IGNORED_BODY, { parseAs: "buffer" }, (_req, _raw, done) => done(null, undefined));
}

/** Registers the body conventions above on `app` (before any route). */
export function installBodyConventions(app: FastifyInstance): void {
  // Fastify reads no body when a request has neither a content type nor a length; one with a
  // content type but nothing declared to follow is made to look the same (RFC 9112: a request
  // without Content-Length or Transfer-Encoding has no body).
  // Callback form: no promise per request (see app.ts).
  app.addHook("onRequest", (req, _reply, done) => {
    const headers = req.raw.headers;
    const length = headers["content-length"];
    if (headers["content-type"] !== undefined && headers["transfer-encoding"] === undefined && (length === undefined || /^0+$/.test(length))) {
      delete headers["content-type"];
    }
    done();
  });

  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  // As bytes, so bytes that are not UTF-8 are seen before decoding hides them.
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (req, raw, done) => {
    const bytes = raw as Buffer;
    if (bytes.length === 0) {
      done(null, undefined);
      return;
    }
    const body = bytes.toString("utf8");
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      done(tooDeep(), undefined);
      return;
    }
    if (!isUtf8(bytes)) {
      done(notUtf8Refusal(bytes, body), undefined);
      return;
    }
    parseJson(req, body, (err, parsed) => {
      if (err !== null) {
        done(err, undefined);
        return;
      }
      const bad = findBadText(parsed);
      if (bad !== null) done(badTextRefusal(bad), undefined);
      else done(null, parsed);
    });
  });

  // Every other content type (a form, text/plain, one that does not parse): a body the client
  // framed as chunked or with a length, but which turns out empty, is no body.
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, raw, done) => {
    if ((raw as Buffer).length === 0) done(null, undefined);
    else done(notJson(), undefined);
  });
}
