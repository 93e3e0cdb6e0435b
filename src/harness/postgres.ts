/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temp folder, start on a
 * free loopback port with durability off (it is thrown away), stop and delete. initdb refuses
 * to run as root, so as root the cluster runs as the `postgres` system user. pg_ctl leaves the
 * server running on its own, so a watchdog process stops and deletes it once the process that owns
 * it has gone, however that ended (a killed test run leaves no server behind).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** Where a running cluster answers. */
export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  readonly url: string;
  readonly port: number;
  /** A connection string for another database on the same cluster. */
  urlFor(database: string): string;
}

export interface PostgresCluster extends PostgresServer {
  /** The folder of the data and the log: `stopPostgresIn(dir)` stops the cluster from another process. */
  readonly dir: string;
  stop(): void;
}

export interface PostgresOptions {
  /** The process whose end stops and deletes the cluster, if it is still running then. Default: this one. */
  readonly owner?: number;
}

/** The folder of initdb/pg_ctl: PG_BINDIR, pg_config's answer, the newest Debian install, or PATH. */
export function postgresBinDir(): string | undefined {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (existsSync(join(dir, "initdb"))) return dir;
  } catch {
    // no pg_config
  }
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], "bin");
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function binDir(): string {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL binaries (initdb, pg_ctl) were not found; set PG_BINDIR");
  return bin;
}

const asRoot = (): boolean => userInfo().uid === 0;

/** The command line of a PostgreSQL tool, as the `postgres` system user when we are root. */
function toolArgv(bin: string, tool: string, args: string[]): [string, string[]] {
  return asRoot() ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]] : [join(bin, tool), args];
}

function runTool(bin: string, dir: string, tool: string, args: string[]): void {
  const [command, argv] = toolArgv(bin, tool, args);
  const r = spawnSync(command, argv, { encoding: "utf8", cwd: dir });
  if (r.status !== 0) throw new Error(`${tool} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/** Stops the cluster in `dir` (from `PostgresCluster.dir`) at once and deletes it; nothing happens when it is gone already. */
export function stopPostgresIn(dir: string): void {
  if (!existsSync(join(dir, "data"))) return;
  try {
    runTool(binDir(), dir, "pg_ctl", ["-D", join(dir, "data"), "-m", "immediate", "stop"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The watchdog: plain node, no imports from here, so it runs without a build or a transform.
const WATCHDOG = `
const [owner, dir, command, ...argv] = process.argv.slice(1);
const { existsSync, rmSync } = require("node:fs");
const { spawnSync } = require("node:child_process");
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === "EPERM"; } };
setInterval(() => {
  if (!existsSync(dir + "/data")) process.exit(0);
  if (alive(Number(owner))) return;
  spawnSync(command, argv, { cwd: dir, stdio: "ignore" });
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}, 1000);
`;

/** Starts a process that stops and deletes the cluster once `owner` has gone, and ends by itself once the cluster is gone. */
function watch(bin: string, dir: string, owner: number): void {
  const [command, argv] = toolArgv(bin, "pg_ctl", ["-D", join(dir, "data"), "-m", "immediate", "stop"]);
  spawn(process.execPath, ["-e", WATCHDOG, String(owner), dir, command, ...argv], { detached: true, stdio: "ignore" }).unref();
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "mgmt-pg-"));
  const data = join(dir, "data");
  if (asRoot()) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => runTool(bin, dir, tool, args);

  run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  run("pg_ctl", ["-D", data, "-w", "-l", join(dir, "log"), "-o", serverOptions, "start"]);
  watch(bin, dir, options.owner ?? process.pid);

  let stopped = false;
  const urlFor = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor("postgres"),
    port,
    dir,
    urlFor,
    stop() {
      if (stopped) return;
      stopped = true;
      stopPostgresIn(dir);
    },
  };
}
