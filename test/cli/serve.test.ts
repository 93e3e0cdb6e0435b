/**
 * `mgmt serve` (dist/cli.js) as a user meets it: the ready line says where the store is, and a
 * start on a busy port leaves the store as it was.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:net";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { storeLocation } from "../../src/server";

interface Ready {
  url: string;
  token: string;
  store: string;
}

interface Run {
  /** The parsed ready line; rejects when the process exits first. */
  ready: Promise<Ready>;
  exit: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  stop(): Promise<number | null>;
}

let dir: string;
const running = new Set<ChildProcess>();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-serve-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
});

function serve(args: string[]): Run {
  const child = spawn(process.execPath, [repoPath("dist/cli.js"), "serve", "--no-default-fixtures", ...args], {
    env: { ...process.env, CHECKPOINT_DISABLE: "1", MGMT_DATA_DIR: join(dir, "data"), MGMT_SERVE_TOKEN: "", MGMT_ADMIN_TOKEN: "", MGMT_DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const ready = new Promise<Ready>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (!out.includes("\n")) return;
      try {
        resolve(JSON.parse(out.slice(0, out.indexOf("\n"))) as Ready);
      } catch {
        reject(new Error(`the first stdout line is not the ready line: ${out}`));
      }
    });
    void exit.then((code) => reject(new Error(`mgmt serve exited ${code} before it was ready:\n${err}`)));
  });
  ready.catch(() => {});
  return {
    ready,
    exit,
    stdout: () => out,
    stderr: () => err,
    stop: () => {
      child.kill("SIGTERM");
      return exit;
    },
  };
}

/** Starts, reads the ready line, stops: what one start printed. */
async function startOnce(args: string[]): Promise<Ready & { firstLog: Record<string, unknown> }> {
  const run = serve(args);
  const ready = await run.ready;
  expect(await run.stop()).toBe(0);
  return { ...ready, firstLog: JSON.parse(run.stderr().split("\n")[0]!) as Record<string, unknown> };
}

/** Every file under `folder` with its bytes. */
function snapshot(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(folder, { recursive: true, encoding: "utf8" })) {
    const path = join(folder, name);
    if (statSync(path).isFile()) files[name] = readFileSync(path).toString("base64");
  }
  return files;
}

function busyPort(): Promise<{ port: number; release(): Promise<void> }> {
  const blocker: Server = createServer();
  return new Promise((resolve, reject) => {
    blocker.once("error", reject);
    blocker.listen({ host: "127.0.0.1", port: 0 }, () => {
      const address = blocker.address();
      resolve({ port: typeof address === "object" && address !== null ? address.port : 0, release: () => new Promise((done) => blocker.close(() => done())) });
    });
  });
}

test("--help exits 0; an unknown flag exits 2 naming it", async () => {
  const help = serve(["--help"]);
  expect(await help.exit).toBe(0);
  expect(help.stdout()).toMatch(/usage: mgmt serve/);
  const bad = serve(["--port", "0", "--no-such-flag"]);
  expect(await bad.exit).toBe(2);
  expect(bad.stderr()).toMatch(/--no-such-flag/);
  expect(bad.stderr()).toMatch(/usage: mgmt serve/);
});

test("the ready line and the first log line say where the store is", async () => {
  const file = await startOnce(["--port", "0", "--db", join(dir, "state", "mgmt.sqlite")]);
  expect(file.store).toBe(join(dir, "state", "mgmt.sqlite"));
  expect(file.firstLog).toMatchObject({ msg: "starting", store: file.store });
  const byDefault = await startOnce(["--port", "0"]);
  expect(byDefault.store).toBe(join(dir, "data", "mgmt.sqlite"));
  const memory = await startOnce(["--port", "0", "--db", ":memory:"]);
  expect(memory.store).toBe(":memory:");
  expect(memory.firstLog).toMatchObject({ store: ":memory:" });
});

test("a start on a busy port exits 1 and leaves the store untouched", async () => {
  const busy = await busyPort();
  try {
    // A new store: not even its folder is made.
    const fresh = serve(["--port", String(busy.port), "--db", join(dir, "new", "mgmt.sqlite")]);
    expect(await fresh.exit).toBe(1);
    expect(fresh.stderr()).toMatch(/EADDRINUSE|address already in use/);
    expect(existsSync(join(dir, "new"))).toBe(false);

    // An existing store: the same bytes.
    const db = join(dir, "kept", "mgmt.sqlite");
    await startOnce(["--port", "0", "--db", db]);
    const files = snapshot(join(dir, "kept"));
    const failed = serve(["--port", String(busy.port), "--db", db]);
    expect(await failed.exit).toBe(1);
    expect(snapshot(join(dir, "kept"))).toEqual(files);
  } finally {
    await busy.release();
  }
});

test("a Postgres store is shown without its password", () => {
  expect(storeLocation("postgresql://mgmt:s3cret@db.example:5432/mgmt?sslmode=disable&password=other")).toBe("postgresql://mgmt:***@db.example:5432/mgmt?sslmode=disable&password=***");
  expect(storeLocation("postgres://db.example/mgmt")).toBe("postgres://db.example/mgmt");
});
