/**
 * Route registration with the API's conventions built in: the `/v4` prefix, bearer
 * authentication and the route's required scope checked in `onRequest` (before the body is
 * read or validated), 405 with `Allow` for a known path and an unsupported method, responses
 * shaped through a contract schema, and each write run in one store transaction with its
 * answer shaped before the commit (`writesIn`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { PathId } from "../../contract";
import type { Scope } from "../../contract/scopes";
import { isStorableId, type Actor } from "../domain/context";
import { DomainError, invalidToken, notFound, scopeMissing } from "../domain/errors";
import { issuesToItems, methodNotAllowed, parseInput } from "./errors";
import type { z } from "zod";
import type { FilterFields } from "../domain/filter";
import type { Answer, RouteContext } from "./answer";
import { listAnswer, type ListFetch, type ListSpec } from "./list";
import { RememberedAnswers } from "./remembered";
import { ignoreBody, readIgnoredBodies } from "./body";

export const API_PREFIX = "/v4";

/** Who may call: anyone, any valid token, or a token holding a scope. */
export type RouteAccess = "public" | "token" | Scope;

type Method = "GET" | "POST" | "PUT" | "DELETE";

/** What Fastify sends JSON bodies with. */
const JSON_TYPE = "application/json; charset=utf-8";

/**
 * What a route tells the OpenAPI document (`GET /v4/openapi.json`); every field is optional.
 * A route registered without one still appears, with a generic answer.
 */
export interface RouteDoc<B extends z.ZodType = z.ZodType> {
  summary?: string;
  /**
   * The request body's contract schema: the handler's `body()` parses with it, and the document
   * shows its "input" form. An operation without one (and without `rawBody`) takes no body, and
   * runs whatever body and content type the client sends (`ignoreBody`).
   */
  body?: B;
  /** The body may be left out (the operation then runs as with an empty object). */
  bodyOptional?: boolean;
  /** The media types of a body taken as raw bytes rather than JSON (an image), read from `req.body`. */
  rawBody?: readonly string[];
  /** The success answer's contract schema (shown in its "output" form). */
  response?: z.ZodType;
  /** The media types of an answer sent as raw bytes (an image) rather than JSON. */
  rawResponse?: readonly string[];
  /** Query parameters, as a zod object of strings. */
  query?: z.ZodType;
  /** Success status (default 200). */
  status?: number;
  /** Set by `list`: a paginated collection of `item`, filterable on `filter`. */
  list?: { item: z.ZodType; filter?: FilterFields };
  /**
   * Why this write commits on its own instead of in the request's transaction (see `Router.writesIn`): a refusal
   * that must keep what it stored (a transfer found expired is marked stale, then refused), or an effect outside
   * the store that a re-run of the transaction would repeat. Such a handler shapes its answer before its commit.
   */
  ownCommit?: string;
}

/**
 * What a handler is given: the request, the caller, and `body()`, the request body parsed by the
 * route's `RouteDoc.body` (400 naming the field otherwise). It is parsed when first asked for, so
 * a handler checks its path (404) before the body, as the API does.
 */
export interface BodyContext<T> extends RouteContext {
  body(): T;
}

type Handler<B extends z.ZodType> = (ctx: BodyContext<z.output<B>>) => Promise<Answer>;

/** Runs `work` in one store transaction, which the services' own transactions join (`StoreCore.transaction`). */
export type RequestTransaction = <T>(work: () => Promise<T>) => Promise<T>;

/** One registered operation, for the OpenAPI document and tests. */
export interface RouteInfo {
  method: Method;
  /** Without the `/v4` prefix, Fastify syntax (`/profile/tokens/:tokenId`). */
  path: string;
  access: RouteAccess;
  doc: RouteDoc;
}

const HANDLED = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] as const;
const BEARER = /^Bearer +(\S+) *$/i;

export class Router {
  private readonly methods = new Map<string, Set<Method>>();
  private readonly actors = new WeakMap<FastifyRequest, Actor>();
  private readonly registered: RouteInfo[] = [];
  private transaction: RequestTransaction | undefined;

  /** Every operation registered so far, in registration order. */
  get routes(): readonly RouteInfo[] {
    return this.registered;
  }

  /** `authenticate`: the caller a bearer token stands for, or an invalid-token error. */
  constructor(
    readonly app: FastifyInstance,
    private readonly authenticate: (bearer: string) => Promise<Actor>,
  ) {
    // Operations without a body ignore any (`ignoreBody`, on each such route).
    readIgnoredBodies(app);
  }

  /**
   * From now on, each write (POST, PUT, DELETE) runs whole in `transaction`, unless its route says `ownCommit`: the
   * services' transactions join it, and the answer is shaped (parsed by its contract schema) inside it. So a failure
   * anywhere in the handler, the answer's shaping too, rolls back everything the request wrote, and a write answers
   * 500 only when nothing was committed; what follows the commit is only sending a body already parsed. The
   * transaction may be run again from the start (Postgres, on a serialization failure), so a handler run in it has
   * no effect outside the store. Without it (a bare router, no store), handlers run as they are.
   */
  writesIn(transaction: RequestTransaction): this {
    this.transaction = transaction;
    return this;
  }

  route<B extends z.ZodType = z.ZodNever>(method: Method, path: string, access: RouteAccess, doc: RouteDoc<B>, handler: Handler<B>): this {
    const url = API_PREFIX + path;
    this.registered.push({ method, path, access, doc });
    const known = this.methods.get(url) ?? new Set<Method>();
    known.add(method);
    this.methods.set(url, known);

    this.app.route({
      method,
      url,
      onRequest: [
        ...(doc.body === undefined && doc.rawBody === undefined ? [ignoreBody] : []),
        ...(access === "public" ? [] : [(req: FastifyRequest, reply: FastifyReply) => this.authorize(req, reply, access)]),
      ],
      handler: async (req, reply) => {
        const actors = this.actors;
        let parsed: { value: z.output<B> } | undefined;
        const ctx: BodyContext<z.output<B>> = {
          req,
          reply,
          get actor(): Actor {
            const actor = actors.get(req);
            if (actor === undefined) throw new Error(`${method} ${url} is public: it has no actor`);
            return actor;
          },
          body: () => (parsed ??= { value: parseBody(doc, req.body, `${method} ${url}`) }).value,
        };
        const transaction = method === "GET" || doc.ownCommit !== undefined ? undefined : this.transaction;
        const answer = transaction === undefined ? await handler(ctx) : await transaction(() => handler(ctx));
        if ("json" in answer) return reply.code(answer.status).header("content-type", JSON_TYPE).send(answer.json);
        return reply.code(answer.status).send(answer.body);
      },
    });
    return this;
  }

  get = <B extends z.ZodType = z.ZodNever>(path: string, access: RouteAccess, doc: RouteDoc<B>, handler: Handler<B>) =>
    this.route("GET", path, access, doc, handler);
  post = <B extends z.ZodType = z.ZodNever>(path: string, access: RouteAccess, doc: RouteDoc<B>, handler: Handler<B>) =>
    this.route("POST", path, access, doc, handler);
  put = <B extends z.ZodType = z.ZodNever>(path: string, access: RouteAccess, doc: RouteDoc<B>, handler: Handler<B>) =>
    this.route("PUT", path, access, doc, handler);
  delete = <B extends z.ZodType = z.ZodNever>(path: string, access: RouteAccess, doc: RouteDoc<B>, handler: Handler<B>) =>
    this.route("DELETE", path, access, doc, handler);

  /**
   * A paginated collection: `page`/`page_size` checked (25..500, default 100), `X-Filter` applied
   * on `spec.filter`'s fields, the answer shaped by `paginated(spec.item)` (see `./list.ts`).
   */
  list<S extends z.ZodType>(path: string, access: RouteAccess, spec: ListSpec<S>, fetch: ListFetch<S>): this {
    const remembered = spec.mark === undefined ? undefined : new RememberedAnswers();
    return this.route(
      "GET",
      path,
      access,
      {
        summary: spec.summary,
        list: { item: spec.item, filter: spec.filter },
      },
      (ctx) => listAnswer(ctx, spec, fetch, remembered),
    );
  }

  /**
   * Answers 405 for every method a known path does not serve. Call once, after all routes.
   * OPTIONS is answered on every path, as a CORS preflight (`./cors.ts`), so `Allow` names it.
   */
  closeMethods(): void {
    for (const [url, served] of this.methods) {
      const allowed = [...served, ...(served.has("GET") ? ["HEAD"] : []), "OPTIONS"];
      const others = HANDLED.filter((m) => !allowed.includes(m));
      this.app.route({
        method: [...others],
        url,
        onRequest: async () => {
          throw methodNotAllowed([...allowed].sort());
        },
        handler: async () => undefined,
      });
    }
  }

  private async authorize(req: FastifyRequest, reply: FastifyReply, access: "token" | Scope): Promise<void> {
    const match = BEARER.exec(req.headers.authorization ?? "");
    if (match === null) throw invalidToken();
    const actor = await this.authenticate(match[1]!);
    // Upstream reports the token's scopes and the ones the operation accepts: `*` where the
    // operation needs none (its answers on /profile, /profile/grants, /account/maintenance).
    reply.header("x-oauth-scopes", actor.scopes.toString());
    reply.header("x-accepted-oauth-scopes", access === "token" ? "*" : access);
    if (access !== "token" && !actor.scopes.allows(access)) throw scopeMissing();
    this.actors.set(req, actor);
  }
}

/**
 * The request body parsed by the route's schema; an optional body left out (or null) is an empty
 * object. A required body left out is answered as upstream answers it: read as an empty object,
 * each field that then lacks is named (`label is required`); where nothing would, the body is asked for.
 */
function parseBody<B extends z.ZodType>(doc: RouteDoc<B>, body: unknown, operation: string): z.output<B> {
  if (doc.body === undefined) throw new Error(`${operation} declares no body schema: it reads no body`);
  if (body === undefined && doc.bodyOptional !== true) {
    const asEmpty = doc.body.safeParse({}, { reportInput: true });
    const named = asEmpty.success ? [] : issuesToItems(asEmpty.error.issues).filter((item) => item.field !== undefined);
    throw new DomainError("invalid", named.length > 0 ? named : [{ reason: "Request body is required" }]);
  }
  return parseInput(doc.body, doc.bodyOptional === true ? (body ?? {}) : body);
}

/** A positive integer id within the stores' range (`MAX_ID`), or undefined. */
export function parseId(value: unknown): number | undefined {
  const parsed = PathId.safeParse(value);
  return parsed.success && isStorableId(parsed.data) ? parsed.data : undefined;
}

/** A path id: a positive integer, or the resource is simply not found. */
export function pathId(req: FastifyRequest, name: string): number {
  const id = parseId((req.params as Record<string, unknown>)[name]);
  if (id === undefined) throw notFound();
  return id;
}
