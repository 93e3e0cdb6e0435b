/**
 * The events list at scale (issue 44, item 2), on SQLite and on Postgres: the first page of
 * `GET /v4/account/events` with 2,000 events in the window against 50,000, and an unrelated
 * request's latency (`GET /v4/profile`) while two clients list events against alone. Printed
 * as ratios (targets: within 2x each). Loopback only; the server runs in this process, the
 * events are recorded through the domain (as the API's own operations record them).
 *
 * SQLite is measured on a file and on `:memory:`.
 *
 * Run with `node scripts/run-ts.mjs bench/events-list.ts` (`BENCH_POSTGRES=0`: SQLite only).
 */
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
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
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

/** Median of `GET /v4/profile` alone, then while two clients list events without pause. */
async function unrelated(server: RunningServer): Promise<[number, number]> {
  const origin = `http://127.0.0.1:${server.port}`;
  const probe = new Pool(origin, { connections: 1 });
  const listers = new Pool(origin, { connections: 2 });
  try {
    const alone: number[] = [];
    for (let i = 0; i < SAMPLES; i++) alone.push(await timeOf(probe, "/v4/profile", server.token!));
    let stop = false;
    const lister = async () => {
      while (!stop) await timeOf(listers, "/v4/account/events?page_size=100", server.token!);
    };
    const running = [lister(), lister()];
    const under: number[] = [];
    for (let i = 0; i < SAMPLES; i++) under.push(await timeOf(probe, "/v4/profile", server.token!));
    stop = true;
    await Promise.all(running);
    return [median(alone), median(under)];
  } finally {
    await probe.close();
    await listers.close();
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
    const [alone, under] = await unrelated(server);
    process.stdout.write(
      `${name}: first page ${small.toFixed(1)} ms at ${SMALL} events, ${large.toFixed(1)} ms at ${LARGE} (${(large / small).toFixed(2)}x); ` +
        `GET /v4/profile ${alone.toFixed(1)} ms alone, ${under.toFixed(1)} ms while two clients list events (${(under / alone).toFixed(2)}x)\n`,
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
