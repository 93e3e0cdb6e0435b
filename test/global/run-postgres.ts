/**
 * One PostgreSQL cluster per jest run, started by whichever process asks first (the server-postgres
 * project's global setup, or a worker running a test that needs it) and joined by the rest; each test
 * makes its own database on it. The cluster belongs to the run's main process: the global teardown stops
 * it, and its watchdog (src/harness/postgres.ts) stops it if the run dies before.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startPostgres, stopPostgresIn, type PostgresServer } from "../../src/harness/postgres";
import { runDir } from "./run-dir";

interface RunCluster {
  readonly port: number;
  /** The cluster's folder, for stopPostgresIn. */
  readonly dir: string;
}

type Claim = { readonly cluster: RunCluster } | { readonly error: string };

const file = (dir: string) => join(dir, "postgres.json");

function read(dir: string): Claim | undefined {
  return existsSync(file(dir)) ? (JSON.parse(readFileSync(file(dir), "utf8")) as Claim) : undefined;
}

function write(dir: string, claim: Claim): void {
  writeFileSync(`${file(dir)}.${process.pid}`, JSON.stringify(claim));
  renameSync(`${file(dir)}.${process.pid}`, file(dir));
}

async function startOrJoin(): Promise<RunCluster> {
  const { dir, owner } = runDir();
  let mine = true;
  try {
    // mkdir is the lock: one process of the run starts the cluster.
    mkdirSync(join(dir, "postgres.lock"));
  } catch {
    mine = false;
  }
  if (mine) {
    try {
      const cluster = await startPostgres({ owner });
      write(dir, { cluster: { port: cluster.port, dir: cluster.dir } });
    } catch (err) {
      write(dir, { error: String(err) });
    }
  }
  for (let waited = 0; ; waited += 200) {
    const claim = read(dir);
    if (claim && "cluster" in claim) return claim.cluster;
    if (claim) throw new Error(`the run's PostgreSQL cluster did not start: ${claim.error}`);
    if (waited > 180_000) throw new Error("the run's PostgreSQL cluster did not start within 3 minutes");
    await sleep(200);
  }
}

let joined: Promise<PostgresServer> | undefined;

/** The run's cluster, started if no process of the run has yet. Make a database of your own on it; never stop it. */
export function runPostgres(): Promise<PostgresServer> {
  joined ??= startOrJoin().then(({ port }) => {
    const urlFor = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
    return { url: urlFor("postgres"), port, urlFor };
  });
  return joined;
}

/** In the global teardown: stops the run's cluster, if a process started one. */
export function stopRunPostgres(): void {
  const claim = read(runDir().dir);
  if (claim && "cluster" in claim) stopPostgresIn(claim.cluster.dir);
}
