/**
 * `mgmt serve` in process: open the store, bootstrap it, build the app, listen. Tests and
 * the CLI both start the server through `startServer`.
 */
import type { FastifyInstance } from "fastify";
import { cryptoSecrets, systemClock, type Clock, type Secrets } from "./clock";
import { createDomain, type Domain } from "./domain";
import { buildApp } from "./http/app";
import { API_PREFIX } from "./http/router";
import { stderrLogger, type Logger } from "./logger";
import { openSqliteStore } from "./store/sqlite";
import type { Store } from "./store/store";

export interface ServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** SQLite file path or `:memory:` (the default). */
  db?: string;
  clock?: Clock;
  secrets?: Secrets;
  /** Default: JSON lines on stderr. */
  logger?: Logger;
  /** A fixed value for the bootstrap token (see `MGMT_SERVE_TOKEN`). */
  token?: string;
  /** On an existing store and without `token`: mint a fresh bootstrap token (default true). */
  mintToken?: boolean;
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
}

export interface RunningServer {
  /** Base address including the version prefix, e.g. `http://127.0.0.1:8080/v4`. */
  url: string;
  port: number;
  /** A usable `*` token for the bootstrap user, or null when none was asked for. */
  token: string | null;
  /** The backend, for tests and tooling that set up state directly. */
  domain: Domain;
  store: Store;
  clock: Clock;
  app: FastifyInstance;
  /** Stops listening, then closes the store. Safe to call more than once. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? stderrLogger;
  const store = await openSqliteStore(options.db ?? ":memory:");
  let app: FastifyInstance | undefined;
  try {
    const domain = createDomain({ store, clock, secrets: options.secrets ?? cryptoSecrets });
    const boot = await domain.accounts.bootstrap({ token: options.token, mintToken: options.mintToken });
    app = buildApp({ domain, logger, bodyLimit: options.bodyLimit });
    await app.listen({ host, port: options.port ?? 0 });
    const address = app.server.address();
    const port = typeof address === "object" && address !== null ? address.port : (options.port ?? 0);
    const hostInUrl = host.includes(":") ? `[${host}]` : host;
    logger.info("listening", { host, port, created: boot.created });

    let closing: Promise<void> | undefined;
    const running: RunningServer = {
      url: `http://${hostInUrl}:${port}${API_PREFIX}`,
      port,
      token: boot.token,
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
    await store.close();
    throw err;
  }
}

export { ManualClock, seededSecrets, systemClock, cryptoSecrets, type Clock, type Secrets } from "./clock";
export { lineLogger, silentLogger, stderrLogger, type Logger } from "./logger";
export { isTokenText } from "./domain/tokens";
