/**
 * `mgmt serve`: the local Management API. Prints one JSON line on stdout when listening
 * (`{"url": ..., "token": ...}`), logs on stderr, stops cleanly on SIGINT or SIGTERM.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { DEFAULT_TIMEOUTS, isTokenText, startServer, type RunningServer } from "../server";
import { isPostgresUrl } from "../server/store/postgres";

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = "127.0.0.1";

const USAGE = `usage: mgmt serve [--port N] [--host ADDR] [--db PATH|URL]

Runs the local Management API. When it is listening it prints one line on stdout,
  {"url":"http://127.0.0.1:8080/v4","token":"<token>"}
and logs to stderr. SIGINT or SIGTERM stops it.

options:
  --port N      port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --host ADDR   address to listen on (default ${DEFAULT_HOST})
  --db PATH     SQLite file, created if missing, or :memory: for a store that
                ends with the process (default $MGMT_DATA_DIR/mgmt.sqlite);
                or a postgres:// or postgresql:// connection string: a shared
                store several servers can serve at once
  --fixtures FILE  load this JSON fixtures file into a new store (see
                docs/fixtures.md); replaces the default fixtures
  --no-default-fixtures  start a new store with the bootstrap account only
                (default: the built-in lived-in account fixtures)
  --rate-limit N  answer 429 after N requests per token per minute (default:
                no limit)
  --request-timeout MS  a request (headers and body) not received within MS
                milliseconds is answered 408 and its connection closed
                (default ${DEFAULT_TIMEOUTS.request})
  --headers-timeout MS  the same for the request's headers alone (default
                ${DEFAULT_TIMEOUTS.headers}; never more than --request-timeout)
  -h, --help    show this help

environment:
  MGMT_DATABASE_URL a postgres:// or postgresql:// connection string used
                    when --db is not given
  MGMT_DATA_DIR     where the default store lives
                    (default $XDG_DATA_HOME/mgmt, else ~/.local/share/mgmt)
  MGMT_SERVE_TOKEN  a fixed value for the printed token (letters, digits and
                    . _ ~ + / - with optional trailing =, at most 256); created
                    in the store if not there yet. Without it, the first start
                    prints the store's first token and every later start mints
                    a new one (tokens are stored hashed and cannot be shown again).
  MGMT_ADMIN_TOKEN  a fixed credential for the admin namespace (admin_url in
                    the ready line); default: a random one per start
`;

interface ServeFlags {
  port: number;
  host: string;
  db: string;
  fixtures?: string;
  defaultFixtures?: boolean;
  rateLimit?: number;
  requestTimeout?: number;
  headersTimeout?: number;
}

const VALUED = new Set(["--port", "--host", "--db", "--fixtures", "--rate-limit", "--request-timeout", "--headers-timeout"]);

type Parsed = { ok: true; flags: ServeFlags } | { ok: false; message: string } | { ok: "help" };

export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  const dataDir = env.MGMT_DATA_DIR || join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "mgmt");
  return join(dataDir, "mgmt.sqlite");
}

export function parseServeArgs(args: string[], env: NodeJS.ProcessEnv = process.env): Parsed {
  const flags: ServeFlags = { port: DEFAULT_PORT, host: DEFAULT_HOST, db: "" };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-h" || arg === "--help") return { ok: "help" };
    if (arg === "--no-default-fixtures") {
      flags.defaultFixtures = false;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUED.has(name)) {
      return { ok: false, message: arg.startsWith("-") ? `unknown option '${name}'` : `unexpected argument '${arg}'` };
    }
    let value: string | undefined;
    if (eq > 0 && arg.startsWith("--")) value = arg.slice(eq + 1);
    else value = args[++i];
    if (value === undefined || value === "") return { ok: false, message: `option '${name}' needs a value` };
    if (name === "--port") {
      if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) return { ok: false, message: `option '--port' must be an integer from 0 to 65535, not '${value}'` };
      flags.port = Number(value);
    } else if (name === "--fixtures") {
      flags.fixtures = value;
    } else if (name === "--rate-limit") {
      if (!/^\d{1,9}$/.test(value) || Number(value) < 1) return { ok: false, message: `option '--rate-limit' must be a positive integer, not '${value}'` };
      flags.rateLimit = Number(value);
    } else if (name === "--request-timeout" || name === "--headers-timeout") {
      if (!/^\d{1,9}$/.test(value) || Number(value) < 1) return { ok: false, message: `option '${name}' must be a positive number of milliseconds, not '${value}'` };
      flags[name === "--request-timeout" ? "requestTimeout" : "headersTimeout"] = Number(value);
    } else if (name === "--host") {
      flags.host = value;
    } else {
      flags.db = value;
    }
  }
  if (flags.db === "" && env.MGMT_DATABASE_URL) {
    if (!isPostgresUrl(env.MGMT_DATABASE_URL)) return { ok: false, message: "MGMT_DATABASE_URL must be a postgres:// or postgresql:// connection string" };
    flags.db = env.MGMT_DATABASE_URL;
  }
  if (flags.db === "") flags.db = defaultDbPath(env);
  return { ok: true, flags };
}

/**
 * Resolves on the first SIGINT or SIGTERM; a second one while stopping exits at once.
 * `dispose` removes exactly the listeners added here.
 */
function watchSignals(): { received: Promise<NodeJS.Signals>; dispose(): void } {
  let handler: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    let first = true;
    handler = (signal) => {
      if (!first) process.exit(130);
      first = false;
      resolve(signal);
    };
  });
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return {
    received,
    dispose: () => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}

export async function runServe(args: string[]): Promise<number> {
  const parsed = parseServeArgs(args);
  if (parsed.ok === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.ok === false) {
    process.stderr.write(`mgmt serve: ${parsed.message}\n(see: mgmt serve --help)\n`);
    return 2;
  }
  const { port, host, db } = parsed.flags;
  const fixedToken = process.env.MGMT_SERVE_TOKEN;
  if (fixedToken !== undefined && fixedToken !== "" && !isTokenText(fixedToken)) {
    process.stderr.write("mgmt serve: MGMT_SERVE_TOKEN must be 1 to 256 of the characters A-Z a-z 0-9 . _ ~ + / - (then optional =)\n");
    return 2;
  }

  const adminToken = process.env.MGMT_ADMIN_TOKEN;
  if (adminToken !== undefined && adminToken !== "" && !isTokenText(adminToken)) {
    process.stderr.write("mgmt serve: MGMT_ADMIN_TOKEN must be 1 to 256 of the characters A-Z a-z 0-9 . _ ~ + / - (then optional =)\n");
    return 2;
  }

  const signals = watchSignals();
  try {
    let server: RunningServer;
    try {
      if (db !== ":memory:" && !isPostgresUrl(db)) mkdirSync(dirname(db), { recursive: true });
      server = await startServer({
        host,
        port,
        db,
        token: fixedToken || undefined,
        fixtures: parsed.flags.fixtures,
        defaultFixtures: parsed.flags.defaultFixtures !== false,
        rateLimit: parsed.flags.rateLimit,
        timeouts: { request: parsed.flags.requestTimeout, headers: parsed.flags.headersTimeout },
        adminToken: process.env.MGMT_ADMIN_TOKEN || undefined,
      });
    } catch (err) {
      process.stderr.write(`mgmt serve: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify({ url: server.url, token: server.token, admin_url: server.adminUrl, admin_token: server.adminToken })}\n`);

    const signal = await signals.received;
    process.stderr.write(`mgmt serve: ${signal}, stopping\n`);
    try {
      await server.close();
    } catch (err) {
      process.stderr.write(`mgmt serve: error while stopping: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
    return 0;
  } finally {
    signals.dispose();
  }
}
