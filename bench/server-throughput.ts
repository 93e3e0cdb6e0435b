/**
 * Requests per second of `mgmt serve` on SQLite and on Postgres, against a bare `node:http`
 * server answering the same cached JSON, all in one run: `GET /v4/profile/sshkeys` (a page of
 * 100 keys) and `POST /v4/profile/sshkeys`. The load comes from this process (undici Pool,
 * CONCURRENCY requests in flight, for TURN_SECONDS per measurement), on loopback. The servers run in this process too, so on a 2-core machine load generator and
 * server share the cores; Postgres runs as its own processes on a throwaway cluster. Run with
 * `npm run bench:server` (or `node scripts/run-ts.mjs bench/server-throughput.ts`).
 *
 * The machine is shared, so one burst from a neighbour could sink one measurement: the targets
 * take turns, ROUNDS times (all GET rounds first, so the page is read from the same 100 keys
 * each time; each round starting with another target), and each ratio is the median of the
 * rounds' ratios to the bare server's turn of the same round.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { startPostgres } from "../src/harness/postgres";
import { silentLogger, startServer, type RunningServer } from "../src/server";
import { createDatabase } from "../src/server/store/postgres";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
/**
 * Each measured turn lasts this long, whatever the target's speed: with a fixed count, the
 * bare server's turns were a tenth of a second, and one hiccup moved its rate by a third.
 */
const TURN_SECONDS = Number(process.env.BENCH_TURN_SECONDS ?? 1.5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** BENCH_POSTGRES=0 leaves Postgres out (a quicker run while working on the SQLite path). */
const POSTGRES = process.env.BENCH_POSTGRES !== "0";
const WARMUP = 200;
/** Each target's unmeasured traffic of each method before its rounds. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

function ed25519KeyText(): string {
  const der = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" });
  const field = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  const blob = Buffer.concat([field(Buffer.from("ssh-ed25519")), field(der.subarray(der.length - 32))]);
  return `ssh-ed25519 ${blob.toString("base64")} bench@example`;
}
const KEY = ed25519KeyText();
const POST_BODY = JSON.stringify({ label: "bench", ssh_key: KEY });

interface Target {
  name: string;
  origin: string;
  token: string;
  close(): Promise<void>;
}

interface Rate {
  rps: number;
  done: number;
  seconds: number;
  /** This process's CPU time per request (load generator and server; not Postgres's own). */
  cpuMicros: number;
}

/** Requests CONCURRENCY at a time, until `count` were sent or `seconds` have passed. */
async function load(target: Target, method: "GET" | "POST", { count = Infinity, seconds = Infinity }: { count?: number; seconds?: number }): Promise<Rate> {
  const pool = new Pool(target.origin, { connections: CONCURRENCY, pipelining: 1 });
  const headers: Record<string, string> = { authorization: `Bearer ${target.token}` };
  if (method === "POST") headers["content-type"] = "application/json";
  const path = method === "GET" ? "/v4/profile/sshkeys?page_size=100" : "/v4/profile/sshkeys";
  const body = method === "POST" ? POST_BODY : undefined;
  let issued = 0;
  let done = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const deadline = start + seconds * 1000;
  const worker = async () => {
    while (issued < count && performance.now() < deadline) {
      issued++;
      const res = await pool.request({ method, path, headers, body });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`${target.name}: ${method} answered ${res.statusCode}`);
      done++;
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await pool.close();
  }
  const took = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { rps: done / took, done, seconds: took, cpuMicros: (used.user + used.system) / done };
}

async function serverTarget(name: string, db: string): Promise<Target & { server: RunningServer }> {
  const server = await startServer({ db, port: 0, logger: silentLogger });
  const origin = server.url.replace(/\/v4$/, "");
  const target = { name, origin, token: server.token!, server, close: () => server.close() };
  // A full page of 100 keys for the GETs (later POSTs add more; the page stays 100).
  await load(target, "POST", { count: 100 });
  return target;
}

/** A bare node:http server answering the cached JSON `mgmt serve` answers. */
async function bareTarget(getBody: string, postBody: string): Promise<Target> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const out = req.method === "POST" ? postBody : getBody;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) });
      res.end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { name: "bare node:http", origin: `http://127.0.0.1:${port}`, token: "x", close: () => new Promise((r) => server.close(() => r())) };
}

async function fetchText(target: Target, method: "GET" | "POST"): Promise<string> {
  const pool = new Pool(target.origin);
  const res = await pool.request({
    method,
    path: method === "GET" ? "/v4/profile/sshkeys?page_size=100" : "/v4/profile/sshkeys",
    headers: { authorization: `Bearer ${target.token}`, ...(method === "POST" ? { "content-type": "application/json" } : {}) },
    body: method === "POST" ? POST_BODY : undefined,
  });
  const text = await res.body.text();
  await pool.close();
  return text;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "mgmt-bench-"));
  const cluster = POSTGRES ? await startPostgres() : undefined;
  const targets: Target[] = [];
  try {
    const sqlite = await serverTarget("mgmt serve, SQLite file", join(dir, "mgmt.sqlite"));
    const postgres = cluster && (await serverTarget("mgmt serve, Postgres", await createDatabase(cluster.url, "bench")));
    const bare = await bareTarget(await fetchText(sqlite, "GET"), await fetchText(sqlite, "POST"));
    targets.push(bare, sqlite, ...(postgres ? [postgres] : []));

    const rounds = { GET: [] as Rate[][], POST: [] as Rate[][] };
    for (const method of ["GET", "POST"] as const) {
      // V8 takes seconds of a route's traffic to compile its hot paths (POSTs ran at a third of
      // their later rate in the first second): the rounds measure the steady state a long-running
      // server is in, not its first few thousand requests.
      for (const target of targets) await load(target, method, { seconds: WARMUP_SECONDS });
      for (let round = 0; round < ROUNDS; round++) {
        const rates: Rate[] = [];
        // Each round starts with another target, and each turn with a short warm-up, so the
        // garbage one turn leaves is not collected in the next target's measured time.
        for (let k = 0; k < targets.length; k++) {
          const i = (round + k) % targets.length;
          await load(targets[i]!, method, { count: WARMUP });
          rates[i] = await load(targets[i]!, method, { seconds: TURN_SECONDS });
        }
        rounds[method].push(rates);
      }
    }
    const summary = (method: "GET" | "POST", i: number) => {
      const turns = rounds[method];
      return {
        rps: median(turns.map((r) => r[i]!.rps)),
        ratio: median(turns.map((r) => r[i]!.rps / r[0]!.rps)),
        cpu: median(turns.map((r) => r[i]!.cpuMicros)),
      };
    };
    const fmt = (s: { rps: number; ratio: number; cpu: number }) =>
      `${s.rps.toFixed(0).padStart(7)} req/s ${s.ratio.toFixed(2).padStart(5)}× ${s.cpu.toFixed(0).padStart(6)} µs`;
    process.stdout.write(
      `server throughput: ${CONCURRENCY} in flight, GETs (a page of 100) then POSTs, ${ROUNDS} rounds of ${TURN_SECONDS} s turns; ` +
        `node ${process.version}, in-process load on the same cores\n\n`,
    );
    process.stdout.write(`${"target".padEnd(26)}  ${"GET /profile/sshkeys".padEnd(30)}  POST /profile/sshkeys\n`);
    targets.forEach((target, i) => process.stdout.write(`${target.name.padEnd(26)}  ${fmt(summary("GET", i))}  ${fmt(summary("POST", i))}\n`));
    process.stdout.write(
      "\nmedians over the rounds; ratios are against the bare node:http server answering the same cached JSON in the same round " +
        "(1.00× = as fast as no work at all); µs: this process's CPU time per request (load generator and server, not Postgres's own processes), " +
        "steadier than req/s when the machine is shared\n",
    );
  } finally {
    for (const target of targets) await target.close().catch(() => {});
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
