/**
 * Where a request's time goes in `mgmt serve` on Postgres: the statements each request sends
 * (counted at the `pg` client, by kind) and a CPU profile of this process under load, its
 * self time summed by where the code lives (our server, fastify, kysely, pg, undici, node).
 * The load generator runs in this process too; its share shows as undici's. Run with
 * `node scripts/run-ts.mjs bench/server-profile.ts` (BENCH_METHOD=POST for the writes,
 * BENCH_SECONDS for the profiled load, BENCH_TOP for the functions listed).
 */
import { generateKeyPairSync } from "node:crypto";
import { Session, type Profiler } from "node:inspector";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { Pool } from "undici";
import { startPostgres } from "../src/harness/postgres";
import { silentLogger, startServer } from "../src/server";
import { createDatabase } from "../src/server/store/postgres";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const METHOD = process.env.BENCH_METHOD === "POST" ? "POST" : "GET";
const TOP = Number(process.env.BENCH_TOP ?? 25);

function ed25519KeyText(): string {
  const der = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" });
  const field = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  const blob = Buffer.concat([field(Buffer.from("ssh-ed25519")), field(der.subarray(der.length - 32))]);
  return `ssh-ed25519 ${blob.toString("base64")} bench@example`;
}
const POST_BODY = JSON.stringify({ label: "bench", ssh_key: ed25519KeyText() });

/**
 * Queries sent, by their first word (`select`, `insert`, `commit`...): one round trip each. A
 * held-back begin or event insert (src/server/store/deferred-begin.ts) rides in another's and is
 * not counted.
 */
const statements = new Map<string, number>();
const countStatements = (): void => {
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === "string" ? first : (first?.text ?? "");
    const kind = (/^\s*(\w+)/.exec(text)?.[1] ?? "?").toLowerCase();
    statements.set(kind, (statements.get(kind) ?? 0) + 1);
    return original.apply(this, args);
  } as typeof pg.Client.prototype.query;
};

async function load(origin: string, token: string, seconds: number): Promise<number> {
  const pool = new Pool(origin, { connections: CONCURRENCY, pipelining: 1 });
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const path = METHOD === "GET" ? "/v4/profile/sshkeys?page_size=100" : "/v4/profile/sshkeys";
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const res = await pool.request({ method: METHOD, path, headers, body: METHOD === "POST" ? POST_BODY : undefined });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`${METHOD} answered ${res.statusCode}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await pool.close();
  return done;
}

/** Fill 100 keys, for a full page. */
async function fill(origin: string, token: string): Promise<void> {
  const pool = new Pool(origin);
  for (let i = 0; i < 100; i++) {
    const res = await pool.request({
      method: "POST",
      path: "/v4/profile/sshkeys",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: POST_BODY,
    });
    await res.body.arrayBuffer();
  }
  await pool.close();
}

/** Where a profiled function lives: a package, our source, or node itself. */
function place(url: string, name: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg !== undefined) return pkg;
  if (/\/src\/server\//.test(url)) return "our server";
  if (/\/src\/|\/bench\//.test(url) || /app-\d+\.cjs/.test(url)) return "our code (bundle)";
  if (url === "") return name.startsWith("(") ? name : "node (native)";
  return "node";
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))));
}

async function main(): Promise<void> {
  countStatements();
  const cluster = await startPostgres();
  const server = await startServer({ db: await createDatabase(cluster.url, "profile"), port: 0, logger: silentLogger });
  const origin = server.url.replace(/\/v4$/, "");
  try {
    await fill(origin, server.token!);
    await load(origin, server.token!, 3);
    statements.clear();
    const session = new Session();
    session.connect();
    await post(session, "Profiler.enable");
    await post(session, "Profiler.setSamplingInterval", { interval: 100 });
    await post(session, "Profiler.start");
    const cpu = process.cpuUsage();
    const start = performance.now();
    const done = await load(origin, server.token!, SECONDS);
    const took = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    const { profile } = await post<{ profile: Profiler.Profile }>(session, "Profiler.stop");
    session.disconnect();

    const samples = new Map<number, number>();
    for (const id of profile.samples ?? []) samples.set(id, (samples.get(id) ?? 0) + 1);
    const total = profile.samples?.length ?? 1;
    const byPlace = new Map<string, number>();
    const byFunction = new Map<string, number>();
    for (const node of profile.nodes) {
      const n = samples.get(node.id) ?? 0;
      if (n === 0) continue;
      const { url, functionName, lineNumber } = node.callFrame;
      const where = place(url, functionName);
      byPlace.set(where, (byPlace.get(where) ?? 0) + n);
      const key = `${functionName || "(anonymous)"}  ${where === "node" || where === "our server" || where === "our code (bundle)" ? `${url.split("/").slice(-1)[0]}:${lineNumber + 1}` : where}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + n);
    }
    const pct = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
    const perRequest = (n: number) => (n / done).toFixed(2);
    process.stdout.write(
      `${METHOD} /v4/profile/sshkeys${METHOD === "GET" ? "?page_size=100" : ""} on Postgres, ${CONCURRENCY} in flight, ${SECONDS} s: ` +
        `${(done / took).toFixed(0)} req/s, ${((used.user + used.system) / done).toFixed(0)} µs CPU a request (this process: load and server)\n\n`,
    );
    process.stdout.write(`round trips a request: ${perRequest([...statements.values()].reduce((a, b) => a + b, 0))} (`);
    process.stdout.write(`${[...statements].map(([k, n]) => `${k} ${perRequest(n)}`).join(", ")})\n\nself time by place\n`);
    for (const [where, n] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, 12)) process.stdout.write(`${pct(n)}  ${where}\n`);
    process.stdout.write(`\ntop functions by self time\n`);
    for (const [fn, n] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) process.stdout.write(`${pct(n)}  ${fn}\n`);
  } finally {
    await server.close();
    cluster.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
