/**
 * The Fastify application: conventions (JSON only, body limit, error bodies, 404/405) and
 * the routes of every area. Routes are thin: parse, authorise (in the router), call the
 * domain, shape through the contract.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { Socket } from "node:net";
import type { Actor } from "../domain/context";
import { notFound } from "../domain/errors";
import type { Logger } from "../logger";
import { errorResponse, makeErrorHandler, NOT_FOUND_BODY } from "./errors";
import { API_PREFIX, Router } from "./router";
import { openApiRoutes } from "./openapi";
import { installBodyConventions } from "./body";
import { installConnectionHandlers, lingeringClose, onClientError } from "./connection";
import { HttpError } from "./errors";
import { hostProblem } from "./host";
import { installCacheHeaders } from "./cache-headers";
import { installCors, type CorsOrigins } from "./cors";
import { DEFAULT_BACKPRESSURE, installBackpressure, type BackpressureLimits } from "./backpressure";

export interface AppOptions {
  /** The caller a bearer token stands for (see `Router`). */
  authenticate: (bearer: string) => Promise<Actor>;
  /** Registers the API's routes (the composition root registers every area's). */
  routes: (router: Router) => void;
  logger: Logger;
  /** Largest accepted request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /**
   * Installs hooks and routes ahead of the API's routes: the composition root (`../index.ts`)
   * installs the admin namespace, injected faults, request counters and rate limiting here, so
   * admin builds on HTTP and HTTP knows nothing of admin.
   */
  install?: (app: FastifyInstance) => void;
  /** How long a client may take to send its request (see `Timeouts`). */
  timeouts?: Partial<Timeouts>;
  /** Origins whose browsers may read answers (default `*`, as upstream). */
  cors?: CorsOrigins;
  /**
   * Read at the start of each request, before it authenticates: a runner that runs the rest
   * of the request with the store's marks of that moment (the Postgres store's
   * `requestMarks`). Absent, nothing is read ahead.
   */
  requestMarks?: () => Promise<(fn: () => void) => void>;
  /** Per-connection bounds on unanswered requests and unsent answer bytes (see `./backpressure.ts`). */
  backpressure?: Partial<BackpressureLimits>;
}

/**
 * Milliseconds a client has to send a request; past either, it is answered 408 (JSON) and the
 * connection closed. Node enforces both, checking every second, or four times per shorter limit.
 */
export interface Timeouts {
  /** From the first byte of a request to the end of its headers (default 10 s). */
  headers: number;
  /** From the first byte of a request to the end of its body (default 30 s). */
  request: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { headers: 10_000, request: 30_000 };

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Upstream serves every path under `/v4beta` as well; so do we, as the same routes. */
const BETA_PREFIX = /^\/v4beta(?=[/?#]|$)/;

/** Makes node close `socket`, when it would, by `lingeringClose` rather than at once. */
function closeGracefully(socket: Socket): void {
  (socket as Socket & { destroySoon?: () => void }).destroySoon = () => lingeringClose(socket);
}

export function buildApp(options: AppOptions): FastifyInstance {
  const { logger } = options;
  const headers = options.timeouts?.headers ?? DEFAULT_TIMEOUTS.headers;
  const request = options.timeouts?.request ?? DEFAULT_TIMEOUTS.request;
  // Short limits are checked often enough to mean what they say.
  const checkInterval = Math.min(1_000, Math.max(25, Math.floor(Math.min(headers, request) / 4)));
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true },
    rewriteUrl: (req) => (req.url ?? "/").replace(BETA_PREFIX, API_PREFIX),
    requestTimeout: request,
    // Node refuses a headers timeout longer than the request timeout.
    // A request without Host is refused below, as JSON, rather than by node with an empty 400.
    http: { headersTimeout: Math.min(headers, request), connectionsCheckingInterval: checkInterval, requireHostHeader: false },
    clientErrorHandler: onClientError,
    frameworkErrors: (error, _req, reply) => {
      const { status, body } = errorResponse(error);
      // Cast through unknown: fastify types this reply by the generics of a route not yet found, whose `code` and `send`
      // admit no status and no body at all; it is an ordinary reply, and answers as every route's does. (A reply
      // decorator cannot stand in: fastify makes this reply without the app's decorations.)
      void (reply as unknown as FastifyReply).code(status).send(body);
    },
  });

  // Bodies are JSON; Fastify's text/plain parser would let other media types through.
  app.removeContentTypeParser("text/plain");
  installBodyConventions(app);

  installConnectionHandlers(app.server);
  installBackpressure(app.server, { ...DEFAULT_BACKPRESSURE, ...options.backpressure });
  const handleError = makeErrorHandler(logger);
  app.setErrorHandler((err, req, reply) => {
    // Answered before the body was read: if the connection closes after this answer, the client
    // may still be sending, and must get to read the answer rather than a reset.
    if (!req.raw.complete) closeGracefully(req.raw.socket);
    handleError(err, req, reply);
  });
  app.setNotFoundHandler((_req, reply) => {
    void reply.code(404).send(NOT_FOUND_BODY);
  });
  // An unknown route is 404 before its body is read, so a bad body cannot turn it into 400.
  // Hooks of every request take Fastify's callback form: an async hook costs a promise and a
  // microtask turn per request, for work that never waits.
  app.addHook("onRequest", (req, reply, done) => {
    // RFC 9112 3.2: exactly one Host, well-formed (HTTP/1.1 must send one); node's own refusal
    // of a missing one would be an empty 400.
    const badHost = hostProblem(req.raw);
    if (badHost !== null) {
      reply.header("connection", "close");
      done(new HttpError(400, [{ reason: badHost }]));
      return;
    }
    done();
  });
  // Before the 404s, admin, faults and rate limits: their answers carry CORS headers too, and a
  // preflight is answered here, whatever path it names.
  installCors(app, options.cors ?? "*");
  installCacheHeaders(app);
  app.addHook("onRequest", (req, _reply, done) => {
    // Nothing can be named with a NUL (bodies refuse one), and Postgres cannot even compare one.
    const nul = (v: unknown) => typeof v === "string" && v.includes("\u0000");
    done(req.is404 || Object.values(req.params as Record<string, unknown>).some(nul) ? notFound() : undefined);
  });
  const { requestMarks } = options;
  if (requestMarks !== undefined) {
    // The runner is kept for the handler too: node reads a body in the connection's context,
    // not the request's, so the marks are put in force again once the body is in.
    const runners = new WeakMap<object, (fn: () => void) => void>();
    app.addHook("onRequest", (req, _reply, done) => {
      requestMarks().then(
        (run) => {
          runners.set(req, run);
          run(done);
        },
        (err: Error) => done(err),
      );
    });
    app.addHook("preValidation", (req, _reply, done) => {
      const run = runners.get(req);
      if (run === undefined) done();
      else run(done);
    });
  }
  app.addHook("onResponse", (req, reply, done) => {
    logger.info("request", { method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) });
    done();
  });

  options.install?.(app);
  const router = new Router(app, options.authenticate);
  options.routes(router);
  // Last, so the document lists every route registered above.
  openApiRoutes(router);
  router.closeMethods();
  return app;
}
