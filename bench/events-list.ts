/**
 * The events list at scale (issue 44, item 2), on SQLite and on Postgres: the first page of
 * `GET /v4/account/events` with 2,000 events in the window against 50,000, and an unrelated
 * request's latency (`GET /v4/profile`) while two clients list events against alone. Printed
 * as ratios (targets: within 2x each). Loopback only; the server runs in this process, the
 * events are recorded through the domain (as the API's own operations record them), and the two
 * listing clients run in a child process.
 *
 * SQLite is measured on a file and on `:memory:`.
 *
 * Run with `node scripts/run-ts.mjs bench/events-list.ts` (`BENCH_POSTGRES=0`: SQLite only).
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { startPostgres } from "../src/harness/postgres";
import { silentLogger, startServer, type RunningServer } from "../src/server";
import { entities } from "../src/server/domain/event-entities";
import { createDatabase } from "../src/server/store/postgres";

const SMALL = Number(process.env.BENCH_SMALL ?? 2_000);
const LARGE = Number(process.env.BENCH_LARGE ?? 50_000);
// Enough for the median of a 1 ms request beside two busy clients to hold still on a shared machine.
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const POSTGRES = process.env.BENCH_POSTGRES !== "0";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function fill(server: RunningServer, upTo: number, have: number): Promise<void> {
  const actor = await server.domain.auth.authenticate(server.token!);
  for (let i = have; i < upTo; i += 64) {
    const n = Math.min(64, upTo - i);
    await Promise.all(
      Array.from({ length: n }, (_, k) => server.domain.events.record({ actor, action: "tag_create", entity: entities.tag(`bench-${i + k}`) })),
    );
  }
}

async function timeOf(pool: Pool, path: string, token: string): Promise<number> {
  const t0 = performance.now();
  const res = await pool.request({ method: "GET", path, headers: { authorization: `Bearer ${token}` } });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
  return performance.now() - t0;
}

async function firstPage(pool: Pool, token: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) times.push(await timeOf(pool, "/v4/account/events?page_size=100", token));
  return median(times);
}

/**
 * Two clients listing events without pause, in a process of their own (as real clients are: in
 * this one, their own parsing of each 100-event page would share the server's event loop and be
 * counted against it). Resolves once both have had an answer; `stop` ends them.
 */
async function startListers(origin: string, token: string, path: string): Promise<{ stop: () => Promise<void> }> {
  const script = `
    const { Pool } = require("undici");
    const pool = new Pool(process.argv[1], { connections: 2 });
    const list = async () => {
      const res = await pool.request({ method: "GET", path: process.argv[3], headers: { authorization: "Bearer " + process.argv[2] } });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(process.argv[3] + " answered " + res.statusCode);
    };
    const lister = async () => { await list(); process.send("ready"); for (;;) await list(); };
    lister(); lister();
    process.on("disconnect", () => process.exit(0));`;
  // `-e` in place of a module file (with no inherited execArgv: not this process's TypeScript loader).
  const child = fork("-e", [script, origin, token, path], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let ready = 0;
  await new Promise<void>((resolve, reject) => {
    child.on("message", () => ++ready === 2 && resolve());
    child.on("exit", (code) => reject(new Error(`the listers exited (${code})`)));
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners("exit");
        child.on("exit", () => resolve());
        child.kill();
      }),
  };
}

/**
 * Medians of `GET /v4/profile` alone, while two clients list events without pause, and, for
 * comparison, while two clients ask `GET /v4/profile` itself without pause (what any two busy
 * clients cost a request on one event loop).
 */
async function unrelated(server: RunningServer): Promise<[number, number, number]> {
  const origin = `http://127.0.0.1:${server.port}`;
  const probe = new Pool(origin, { connections: 1 });
  const sample = async () => {
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) times.push(await timeOf(probe, "/v4/profile", server.token!));
    return median(times);
  };
  const beside = async (path: string) => {
    const busy = await startListers(origin, server.token!, path);
    try {
      return await sample();
    } finally {
      await busy.stop();
    }
  };
  try {
    return [await sample(), await beside("/v4/account/events?page_size=100"), await beside("/v4/profile")];
  } finally {
    await probe.close();
  }
}

async function measure(name: string, db: string): Promise<void> {
  const server = await startServer({ db, logger: silentLogger, rateLimit: undefined });
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: 1 });
  try {
    await fill(server, SMALL, 0);
    const small = await firstPage(pool, server.token!);
    await fill(server, LARGE, SMALL);
    const large = await firstPage(pool, server.token!);
    const [alone, under, busy] = await unrelated(server);
    process.stdout.write(
      `${name}: first page ${small.toFixed(1)} ms at ${SMALL} events, ${large.toFixed(1)} ms at ${LARGE} (${(large / small).toFixed(2)}x); ` +
        `GET /v4/profile ${alone.toFixed(1)} ms alone, ${under.toFixed(1)} ms while two clients list events (${(under / alone).toFixed(2)}x; ` +
        `${(busy / alone).toFixed(2)}x while two clients ask it)\n`,
    );
  } finally {
    await pool.close();
    await server.close();
  }
}

async function main(): Promise<void> {
  // A file, as `mgmt serve` keeps by default: its long reads run on the read worker (src/server/store/read-worker.ts).
  // `:memory:` (`--ephemeral`) has no second connection, so its reads stay on the event loop.
  const dir = mkdtempSync(join(tmpdir(), "bench-events-"));
  try {
    await measure("SQLite file", join(dir, "mgmt.sqlite"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await measure("SQLite :memory:", ":memory:");
  if (!POSTGRES) return;
  const cluster = await startPostgres();
  try {
    await measure("Postgres", await createDatabase(cluster.url, "bench_events"));
  } finally {
    cluster.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
