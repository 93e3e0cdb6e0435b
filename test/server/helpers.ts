/** Shared by the server tests: a server on port 0 over `:memory:` (or a fresh Postgres database, see test-store.ts), and an HTTP caller. */
import { connect } from "node:net";
import { request } from "undici";
import { ErrorBody } from "../../src/contract";
import { ManualClock, lineLogger, startServer, type RunningServer, type ServerOptions } from "../../src/server";
import { freshPostgresDb, onPostgres } from "./test-store";

export interface TestServer extends RunningServer {
  clock: ManualClock;
  /** Every log line the server wrote. */
  logs: string[];
}

export const START = "2025-03-01T12:00:00Z";

export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const clock = new ManualClock(START);
  const logs: string[] = [];
  // In the server-postgres project, a server without an explicit `db` gets a fresh database, dropped on close.
  const fresh = options.db === undefined && onPostgres() ? await freshPostgresDb() : undefined;
  let server: RunningServer;
  try {
    server = await startServer({ db: fresh?.db ?? ":memory:", port: 0, clock, logger: lineLogger((line) => logs.push(line)), ...options });
  } catch (err) {
    await fresh?.cleanup();
    throw err;
  }
  if (fresh) {
    const close = server.close;
    server.close = () => close().finally(() => fresh.cleanup());
  }
  return Object.assign(server, { clock, logs });
}

export interface CallOptions {
  /** Bearer token; null sends no Authorization header. Default: the server's token. */
  token?: string | null;
  /** Sent as a JSON body with Content-Type application/json. */
  json?: unknown;
  /** Sent as is. */
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: unknown;
}

/** Calls `path` (relative to the `/v4` base, or absolute from `/` when it starts with `//`). */
export async function call(server: RunningServer, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const base = path.startsWith("//") ? server.url.replace(/\/v4$/, "") + path.slice(1) : server.url + path;
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? server.token : options.token;
  if (token !== null) headers.authorization ??= `Bearer ${token}`;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  }
  const res = await request(base, { method: method as "GET", headers, body });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: `body` stays undefined and the test looks at `text`.
  }
  return { status: res.statusCode, headers: res.headers, text, body: parsed };
}

export const errorBody = (reason: string, field?: string) => ({ errors: [field === undefined ? { reason } : { field, reason }] });

/** An error answer: the status, a JSON content type and the contract's error body, which it returns. */
export function expectJsonError(res: Reply, status: number): ErrorBody {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  return ErrorBody.parse(res.body);
}

/**
 * Writes `chunks` (HTTP/1.1 exactly as given, malformed on purpose if need be) and reads until the
 * server closes the connection. Our side stays open: Node drops a request whose client half-closes
 * before the answer, and a client with more to send would not close either.
 */
export function rawHttp(port: number, chunks: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const data: Buffer[] = [];
    socket.on("data", (d: Buffer) => data.push(d));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(data).toString("utf8")));
    socket.on("connect", () => {
      for (const c of chunks) socket.write(c);
    });
  });
}
