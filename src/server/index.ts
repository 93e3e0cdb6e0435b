/**
 * `mgmt serve` in process: bind the port, open the store, bootstrap it, build the app, serve.
 * Tests and the CLI both start the server through `startServer`.
 */
import type { FastifyInstance } from "fastify";
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, resolve } from "node:path";
import { cryptoSecrets, systemClock, type Clock, type Secrets } from "./clock";
import { createDomain, registerRoutes, repos, type Domain, type Store } from "./areas";
import { buildApp, type Timeouts } from "./http/app";
import type { BackpressureLimits } from "./http/backpressure";
import { API_PREFIX } from "./http/router";
import { ADMIN_PREFIX, installAdmin } from "./admin/install";
import { resolveFixtures, setupExtras, type ExtrasOptions } from "./extras";
import { SettableClock } from "./settable-clock";
import { stderrLogger, type Logger } from "./logger";
import { isPostgresUrl, openPostgresStore } from "./store/postgres";
import { openSqliteStore } from "./store/sqlite";

/** Also: `adminToken`, `fixtures`, `defaultFixtures`, `rateLimit` (see `./extras.ts`). */
import type { WriteCheck } from "./store/store";

export interface ServerOptions extends ExtrasOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** SQLite file path or `:memory:` (the default), or a `postgres://` / `postgresql://` connection string. */
  db?: string;
  clock?: Clock;
  secrets?: Secrets;
  /** Default: JSON lines on stderr. */
  logger?: Logger;
  /** A fixed value for the bootstrap token (see `MGMT_SERVE_TOKEN`). */
  token?: string;
  /** Without `token`: the bootstrap token an earlier start printed, printed again while it is usable in this store. */
  keptToken?: string;
  /** Revoke `keptToken` and mint a new bootstrap token (`mgmt serve --new-token`). */
  newToken?: boolean;
  /** On an existing store, without `token` and without a usable `keptToken`: mint a fresh bootstrap token (default true). */
  mintToken?: boolean;
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** How long a client has to send its request's headers and body (see `DEFAULT_TIMEOUTS`). */
  timeouts?: Partial<Timeouts>;
  /** Serialized origins whose browsers may read answers (`mgmt serve --cors-origin`); absent, empty or holding `*`: any, as upstream. */
  corsOrigins?: readonly string[];
  /** Per-connection bounds on pipelined requests and unsent answers (see `DEFAULT_BACKPRESSURE`). */
  backpressure?: Partial<BackpressureLimits>;
}

export interface RunningServer {
  /** Base address including the version prefix, e.g. `http://127.0.0.1:8080/v4`. */
  url: string;
  port: number;
  /** Where the store lives: the SQLite file's absolute path, `:memory:`, or the Postgres URL without its password. */
  location: string;
  /** A usable `*` token for the bootstrap user, or null when none was asked for. */
  token: string | null;
  /** The admin namespace, e.g. `http://127.0.0.1:8080/__admin`, and its credential. */
  adminUrl: string;
  adminToken: string;
  /**
   * Whether the store could take a write when the server started (`mgmt serve` puts it in its ready line); the
   * admin namespace's `GET /__admin/ready` asks again.
   */
  storeAtStart: WriteCheck;
  /** The backend, for tests and tooling that set up state directly. */
  domain: Domain;
  store: Store;
  clock: Clock;
  app: FastifyInstance;
  /** Stops listening, then closes the store. Safe to call more than once. */
  close(): Promise<void>;
}

/** The store's location for people to read: a password in a Postgres URL is masked. */
export function storeLocation(db: string): string {
  if (db === ":memory:") return db;
  if (!isPostgresUrl(db)) return resolve(db);
  try {
    const url = new URL(db);
    if (url.password !== "") url.password = "***";
    if (url.searchParams.has("password")) url.searchParams.set("password", "***");
    return url.toString();
  } catch {
    return `${db.slice(0, db.indexOf(":"))}://***`;
  }
}

/** Listens on host:port with a plain socket, which the app takes over once it is ready. */
function bindPort(host: string, port: number): Promise<Server> {
  const socket = createServer();
  return new Promise((resolveBound, reject) => {
    socket.once("error", reject);
    socket.listen({ host, port }, () => {
      socket.off("error", reject);
      resolveBound(socket);
    });
  });
}

async function openStore(db: string, logger: Logger): Promise<Store> {
  if (isPostgresUrl(db)) return openPostgresStore(db, repos, { onPoolError: (err) => logger.error("database connection error", { error: err.message }) });
  // A folder made here is the owner's alone: `mgmt serve` keeps the bootstrap token beside the store.
  if (db !== ":memory:") mkdirSync(dirname(resolve(db)), { recursive: true, mode: 0o700 });
  return openSqliteStore(db, repos);
}

/** Node's documented hand-over: the HTTP server adopts the bound socket's handle. */
function adoptSocket(server: FastifyInstance["server"], socket: Server): Promise<void> {
  return new Promise<void>((listening, reject) => {
    server.once("error", reject);
    server.listen(socket, () => {
      server.off("error", reject);
      listening();
    });
  });
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  // Settable through the admin namespace (an offset over the given or system clock).
  const clock = new SettableClock(options.clock ?? systemClock);
  const logger = options.logger ?? stderrLogger;
  const db = options.db ?? ":memory:";
  const location = storeLocation(db);
  logger.info("starting", { store: location });
  // A bad fixtures file is refused before the store is opened.
  const fixtures = resolveFixtures(options);
  // The port before the store: a start that cannot listen (a busy port) creates and writes nothing.
  const socket = await bindPort(host, options.port ?? 0);
  let store: Store;
  try {
    store = await openStore(db, logger);
  } catch (err) {
    socket.close();
    throw err;
  }
  let app: FastifyInstance | undefined;
  let handedOver = false;
  try {
    const domain = createDomain({ store, clock, secrets: options.secrets ?? cryptoSecrets });
    const boot = await domain.accounts.bootstrap({ token: options.token, kept: options.keptToken, rotate: options.newToken, mintToken: options.mintToken });
    const secrets = options.secrets ?? cryptoSecrets;
    const admin = await setupExtras({ options, fixtures, store, domain, clock, secrets, logger, created: boot.created, fixedToken: options.token });
    app = buildApp({
      authenticate: (bearer) => domain.auth.authenticate(bearer),
      routes: (router) => registerRoutes(router, domain),
      logger,
      bodyLimit: options.bodyLimit,
      install: (fastify) => installAdmin(fastify, admin),
      timeouts: options.timeouts,
      cors: options.corsOrigins === undefined || options.corsOrigins.length === 0 || options.corsOrigins.includes("*") ? "*" : options.corsOrigins,
      requestMarks: store.requestMarks?.bind(store),
      backpressure: options.backpressure,
    });
    await app.ready();
    const server = app.server;
    handedOver = true;
    await adoptSocket(server, socket);
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : (options.port ?? 0);
    const hostInUrl = host.includes(":") ? `[${host}]` : host;
    // A store that cannot write still serves reads; the start says so rather than looking healthy.
    const storeAtStart = await store.writable();
    if (!storeAtStart.writable) logger.error("store cannot write", { store: location, problem: storeAtStart.problem });
    logger.info("listening", { host, port, created: boot.created });

    let closing: Promise<void> | undefined;
    const running: RunningServer = {
      url: `http://${hostInUrl}:${port}${API_PREFIX}`,
      port,
      location,
      token: boot.token,
      adminUrl: `http://${hostInUrl}:${port}${ADMIN_PREFIX}`,
      adminToken: admin.token,
      storeAtStart,
      domain,
      store,
      clock,
      app,
      close: () => {
        closing ??= (async () => {
          try {
            await running.app.close();
          } finally {
            await store.close();
          }
        })();
        return closing;
      },
    };
    return running;
  } catch (err) {
    await app?.close().catch(() => {});
    if (!handedOver) socket.close();
    await store.close();
    throw err;
  }
}

export { ManualClock, seededSecrets, systemClock, cryptoSecrets, type Clock, type Secrets } from "./clock";
export { DEFAULT_TIMEOUTS, type Timeouts } from "./http/app";
export { DEFAULT_BACKPRESSURE, gateOf, type BackpressureLimits, type ConnectionLoad } from "./http/backpressure";
export { originOf } from "./http/cors";
export { lineLogger, silentLogger, stderrLogger, type Logger } from "./logger";
export { isPostgresUrl } from "./store/postgres";
export type { WriteCheck } from "./store/store";
