/**
 * `mgmt serve`: the local Management API. Prints one JSON line on stdout when listening
 * (`{"url": ..., "token": ..., "store": ...}`), logs on stderr, stops cleanly on SIGINT or SIGTERM.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { BEARER_TOKEN_TEXT, isBearerTokenText } from "../contract/field-rules";
import { DEFAULT_TIMEOUTS, isPostgresUrl, originOf, startServer, storeLocation, type RunningServer } from "../server";
import { parseFlags, settle, type FlagParse } from "./args";
import { EPHEMERAL_FLAG, EPHEMERAL_USAGE, parseEphemeralArgs, runEphemeral } from "./ephemeral";
import { splitCommand } from "./wrapped-command";

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = "127.0.0.1";

const USAGE = `usage: mgmt serve [--port N] [--host ADDR] [--db PATH|URL] [--no-default-fixtures] [--new-token] [--cors-origin URL]...
       mgmt serve --ephemeral [serve flags] -- CMD [ARGS...]

Runs the local Management API. When it is listening it prints one line on stdout,
  {"url":"http://127.0.0.1:8080/v4","token":"<token>","store":"<where the store is>",...}
and logs to stderr. SIGINT or SIGTERM stops it. A start that fails (a busy port,
say) creates and changes nothing.

options:
  --port N      port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --host ADDR   address to listen on (default ${DEFAULT_HOST})
  --db PATH     SQLite file, created if missing, or :memory: for a store that
                ends with the process (default $MGMT_DATA_DIR/mgmt.sqlite);
                or a postgres:// or postgresql:// connection string: a shared
                store several servers can serve at once
  --fixtures FILE  load this JSON fixtures file into a new store (see
                docs/fixtures.md); replaces the default fixtures
  --no-default-fixtures  start a new store empty: the bootstrap account, its
                user and token only (default: the built-in lived-in account
                fixtures: SSH keys, logins, invoices, events ...)
  --new-token   revoke the kept bootstrap token and mint a new one (below)
  --rate-limit N  answer 429 after N requests per token per minute (default:
                no limit)
  --request-timeout MS  a request (headers and body) not received within MS
                milliseconds is answered 408 and its connection closed
                (default ${DEFAULT_TIMEOUTS.request})
  --headers-timeout MS  the same for the request's headers alone (default
                ${DEFAULT_TIMEOUTS.headers}; never more than --request-timeout)
  --cors-origin URL  let browser pages from this origin (scheme://host[:port])
                read the API's answers; repeat for several; '*' for any
                (default: any, as upstream)
  --ephemeral   run CMD against a new in-memory server on a free port, with
                MGMT_URL and MGMT_TOKEN set, then stop (see: mgmt serve
                --ephemeral --help)
  -h, --help    show this help

the bootstrap token:
  The first start on a store mints a '*' token that never expires and keeps it
  in a file only you can read: PATH.token beside a SQLite file, or
  $MGMT_DATA_DIR/postgres-<hash of the URL>.token for Postgres. Later starts
  print the same token while the store still accepts it, and mint (and keep) a
  new one when it was revoked or the file is gone. A :memory: store keeps none.

environment:
  MGMT_DATABASE_URL a postgres:// or postgresql:// connection string used
                    when --db is not given
  MGMT_DATA_DIR     where the default store lives
                    (default $XDG_DATA_HOME/mgmt, else ~/.local/share/mgmt)
  MGMT_SERVE_TOKEN  a fixed value for the printed token (letters, digits and
                    . _ ~ + / - with optional trailing =, at most 256); created
                    in the store if not there yet; no token file is kept
  MGMT_ADMIN_TOKEN  a fixed credential for the admin namespace (admin_url in
                    the ready line); default: a random one per start
`;

const SERVE_OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  db: { type: "string" },
  fixtures: { type: "string" },
  "no-default-fixtures": { type: "boolean" },
  "new-token": { type: "boolean" },
  "rate-limit": { type: "string" },
  "request-timeout": { type: "string" },
  "headers-timeout": { type: "string" },
  "cors-origin": { type: "string", multiple: true },
} as const;

interface ServeFlags {
  port: number;
  host: string;
  db: string;
  fixtures?: string;
  defaultFixtures?: boolean;
  newToken?: boolean;
  rateLimit?: number;
  requestTimeout?: number;
  headersTimeout?: number;
  /** `--cors-origin`, serialized; absent: any origin. */
  corsOrigins?: string[];
  /** MGMT_SERVE_TOKEN */
  token?: string;
  /** MGMT_ADMIN_TOKEN */
  adminToken?: string;
}

function dataDir(env: NodeJS.ProcessEnv): string {
  return env.MGMT_DATA_DIR || join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "mgmt");
}

export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), "mgmt.sqlite");
}

/**
 * Where the bootstrap token of a store is kept: beside a SQLite file; for Postgres, which has
 * no file to sit beside, in the data folder under a hash of the URL without its password (so a
 * changed password keeps the token); nowhere for `:memory:`.
 */
export function tokenFilePath(db: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (db === ":memory:") return undefined;
  const location = storeLocation(db);
  if (!isPostgresUrl(db)) return `${location}.token`;
  return join(dataDir(env), `postgres-${createHash("sha256").update(location).digest("hex").slice(0, 16)}.token`);
}

const positiveInteger = (value: string): number | undefined => (/^\d{1,9}$/.test(value) && Number(value) >= 1 ? Number(value) : undefined);

export function parseServeArgs(args: string[], env: NodeJS.ProcessEnv = process.env): FlagParse<ServeFlags> {
  const parsed = parseFlags(args, SERVE_OPTIONS);
  if (!("values" in parsed)) return parsed;
  const v = parsed.values;
  const problem = (text: string): FlagParse<ServeFlags> => ({ problem: text });
  for (const name of ["port", "host", "db", "fixtures", "rate-limit", "request-timeout", "headers-timeout"] as const) {
    if (v[name] === "") return problem(`option '--${name}' needs a value`);
  }
  const flags: ServeFlags = { port: DEFAULT_PORT, host: v.host ?? DEFAULT_HOST, db: v.db ?? "" };
  if (v.port !== undefined) {
    if (!/^\d{1,5}$/.test(v.port) || Number(v.port) > 65535) return problem(`option '--port' must be an integer from 0 to 65535, not '${v.port}'`);
    flags.port = Number(v.port);
  }
  if (v.fixtures !== undefined) flags.fixtures = v.fixtures;
  if (v["no-default-fixtures"]) flags.defaultFixtures = false;
  if (v["rate-limit"] !== undefined) {
    flags.rateLimit = positiveInteger(v["rate-limit"]);
    if (flags.rateLimit === undefined) return problem(`option '--rate-limit' must be a positive integer, not '${v["rate-limit"]}'`);
  }
  for (const [name, key] of [
    ["request-timeout", "requestTimeout"],
    ["headers-timeout", "headersTimeout"],
  ] as const) {
    const value = v[name];
    if (value === undefined) continue;
    flags[key] = positiveInteger(value);
    if (flags[key] === undefined) return problem(`option '--${name}' must be a positive number of milliseconds, not '${value}'`);
  }
  if (v["cors-origin"] !== undefined) {
    const origins: string[] = [];
    for (const value of v["cors-origin"]) {
      const origin = value === "*" ? value : originOf(value);
      if (origin === undefined) return problem(`option '--cors-origin' must be an origin such as https://app.example:8443, or '*', not '${value}'`);
      origins.push(origin);
    }
    flags.corsOrigins = origins;
  }
  if (env.MGMT_SERVE_TOKEN) {
    if (!isBearerTokenText(env.MGMT_SERVE_TOKEN)) return problem(`MGMT_SERVE_TOKEN ${BEARER_TOKEN_TEXT}`);
    if (v["new-token"]) return problem("option '--new-token' rotates the kept token; with MGMT_SERVE_TOKEN set the token is that value");
    flags.token = env.MGMT_SERVE_TOKEN;
  }
  if (v["new-token"]) flags.newToken = true;
  if (env.MGMT_ADMIN_TOKEN) {
    if (!isBearerTokenText(env.MGMT_ADMIN_TOKEN)) return problem(`MGMT_ADMIN_TOKEN ${BEARER_TOKEN_TEXT}`);
    flags.adminToken = env.MGMT_ADMIN_TOKEN;
  }
  if (flags.db === "" && env.MGMT_DATABASE_URL) {
    if (!isPostgresUrl(env.MGMT_DATABASE_URL)) return problem("MGMT_DATABASE_URL must be a postgres:// or postgresql:// connection string");
    flags.db = env.MGMT_DATABASE_URL;
  }
  if (flags.db === "") flags.db = defaultDbPath(env);
  return { values: flags, positionals: [] };
}

/** The token an earlier start kept in `file`, if it is there and looks like one. */
function readKeptToken(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  return isBearerTokenText(text) ? text : undefined;
}

/** Writes the token readable by its owner only, whole or not at all. */
function keepToken(file: string, token: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, `${token}\n`, { mode: 0o600 });
  renameSync(partial, file);
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

/** What the flags ask of the server wherever its store is. */
function serverSettings(flags: ServeFlags) {
  return {
    host: flags.host,
    token: flags.token,
    fixtures: flags.fixtures,
    defaultFixtures: flags.defaultFixtures !== false,
    rateLimit: flags.rateLimit,
    timeouts: { request: flags.requestTimeout, headers: flags.headersTimeout },
    adminToken: flags.adminToken,
    corsOrigins: flags.corsOrigins,
  };
}

/** `--ephemeral`: the serve flags that apply to an in-memory store, and the command to run against it. */
async function runServeEphemeral(args: string[]): Promise<number> {
  const checked = settle("serve", EPHEMERAL_USAGE, parseEphemeralArgs(args));
  if ("exit" in checked) return checked.exit;
  // The store is memory whatever the environment names.
  const { MGMT_DATABASE_URL: _shared, ...env } = process.env;
  const parsed = settle("serve", EPHEMERAL_USAGE, parseServeArgs(checked.values.serveArgs, env));
  if ("exit" in parsed) return parsed.exit;
  return runEphemeral(checked.values.command, serverSettings(parsed.values));
}

export async function runServe(args: string[]): Promise<number> {
  const { flags: serveArgs, command } = splitCommand(args);
  if (serveArgs.includes(EPHEMERAL_FLAG)) return runServeEphemeral(args);
  if (command !== undefined) {
    process.stderr.write(`mgmt serve: a command after '--' runs only with ${EPHEMERAL_FLAG}\n${USAGE}`);
    return 2;
  }
  const parsed = settle("serve", USAGE, parseServeArgs(args));
  if ("exit" in parsed) return parsed.exit;
  const flags = parsed.values;
  const tokenFile = flags.token === undefined ? tokenFilePath(flags.db) : undefined;

  const signals = watchSignals();
  try {
    let server: RunningServer;
    let keptToken: string | undefined;
    try {
      keptToken = tokenFile === undefined ? undefined : readKeptToken(tokenFile);
      server = await startServer({ ...serverSettings(flags), port: flags.port, db: flags.db, keptToken, newToken: flags.newToken });
    } catch (err) {
      process.stderr.write(`mgmt serve: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
    // Only once listening: a start that fails leaves the file as it was.
    if (tokenFile !== undefined && server.token !== null && server.token !== keptToken) {
      try {
        keepToken(tokenFile, server.token);
      } catch (err) {
        process.stderr.write(
          `mgmt serve: cannot keep the token in ${tokenFile}, so the next start will mint another: ${err instanceof Error ? err.message : String(err)}\n`,
        );
      }
    }
    const ready = {
      url: server.url,
      token: server.token,
      store: server.location,
      token_file: tokenFile,
      admin_url: server.adminUrl,
      admin_token: server.adminToken,
      // A store that cannot write serves reads only: said here, and by GET /__admin/ready.
      store_writable: server.storeAtStart.writable,
      ...(server.storeAtStart.writable ? {} : { store_problem: server.storeAtStart.problem }),
    };
    process.stdout.write(`${JSON.stringify(ready)}\n`);

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
