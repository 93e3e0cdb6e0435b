/** @tier cli */
/**
 * `mgmt serve` (dist/cli.js) as a user meets it: the ready line says where the store is, the
 * bootstrap token is minted once per store and kept beside it, `--new-token` rotates it, and a
 * start on a busy port leaves the store as it was.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:net";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { silentLogger, startServer, storeLocation } from "../../src/server";
import { SECTIONS } from "../../src/server/fixtures/registry";
import { tokenFilePath } from "../../src/cli/serve";

interface Ready {
  url: string;
  token: string;
  store: string;
  token_file?: string;
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

const status = async (url: string, token: string): Promise<number> => (await fetch(`${url}/profile`, { headers: { authorization: `Bearer ${token}` } })).status;

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

test("--help shows the store flags and exits 0; an unknown flag exits 2 naming it", async () => {
  const help = serve(["--help"]);
  expect(await help.exit).toBe(0);
  expect(help.stdout()).toMatch(/--no-default-fixtures +start a new store empty/);
  expect(help.stdout()).toMatch(/--new-token/);
  const bad = serve(["--port", "0", "--no-such-flag"]);
  expect(await bad.exit).toBe(2);
  expect(bad.stderr()).toMatch(/--no-such-flag/);
  expect(bad.stderr()).toMatch(/usage: mgmt serve/);
});

test("the bootstrap token is minted once per store, kept owner-only beside it, and the ready line and first log line say where the store is", async () => {
  const db = join(dir, "state", "mgmt.sqlite");
  const first = await startOnce(["--port", "0", "--db", db]);
  expect(first.store).toBe(db);
  expect(first.firstLog).toMatchObject({ msg: "starting", store: db });
  expect(first.token_file).toBe(`${db}.token`);
  expect(readFileSync(`${db}.token`, "utf8").trim()).toBe(first.token);
  expect(statSync(`${db}.token`).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, "state")).mode & 0o777).toBe(0o700);

  const second = serve(["--port", "0", "--db", db]);
  const again = await second.ready;
  expect(again.token).toBe(first.token);
  // One bootstrap token, not one per start.
  const tokens = (await (await fetch(`${again.url}/profile/tokens`, { headers: { authorization: `Bearer ${again.token}` } })).json()) as { results: number };
  expect(tokens.results).toBe(1);
  expect(await second.stop()).toBe(0);

  // The file gone: a new token, kept again.
  unlinkSync(`${db}.token`);
  const third = await startOnce(["--port", "0", "--db", db]);
  expect(third.token).not.toBe(first.token);
  expect(readFileSync(`${db}.token`, "utf8").trim()).toBe(third.token);
});

test("the default store under MGMT_DATA_DIR; a :memory: store keeps no file", async () => {
  const ready = await startOnce(["--port", "0"]);
  expect(ready.store).toBe(join(dir, "data", "mgmt.sqlite"));
  expect(readFileSync(join(dir, "data", "mgmt.sqlite.token"), "utf8").trim()).toBe(ready.token);

  const memory = await startOnce(["--port", "0", "--db", ":memory:"]);
  expect(memory.store).toBe(":memory:");
  expect(memory.firstLog).toMatchObject({ store: ":memory:" });
  expect(memory.token_file).toBeUndefined();
  expect(readdirSync(join(dir, "data")).sort()).toEqual(["mgmt.sqlite", "mgmt.sqlite.token"]);
});

test("--new-token revokes the kept token and keeps a new one; a revoked kept token is replaced", async () => {
  const db = join(dir, "mgmt.sqlite");
  const old = await startOnce(["--port", "0", "--db", db]);

  const rotating = serve(["--port", "0", "--db", db, "--new-token"]);
  const rotated = await rotating.ready;
  expect(rotated.token).not.toBe(old.token);
  expect(await status(rotated.url, old.token)).toBe(401);
  expect(await status(rotated.url, rotated.token)).toBe(200);
  expect(readFileSync(`${db}.token`, "utf8").trim()).toBe(rotated.token);
  // Revoked through the API: the next start does not print a token the store refuses.
  const self = (await (await fetch(`${rotated.url}/profile/tokens`, { headers: { authorization: `Bearer ${rotated.token}` } })).json()) as {
    data: { id: number }[];
  };
  expect(
    (await fetch(`${rotated.url}/profile/tokens/${self.data[0]!.id}`, { method: "DELETE", headers: { authorization: `Bearer ${rotated.token}` } })).status,
  ).toBe(200);
  expect(await rotating.stop()).toBe(0);

  const next = serve(["--port", "0", "--db", db]);
  const fresh = await next.ready;
  expect(fresh.token).not.toBe(rotated.token);
  expect(await status(fresh.url, fresh.token)).toBe(200);
  expect(readFileSync(`${db}.token`, "utf8").trim()).toBe(fresh.token);
  expect(await next.stop()).toBe(0);
});

test("a start on a busy port exits 1 and leaves the store untouched", async () => {
  const busy = await busyPort();
  try {
    // A new store: not even its folder is made.
    const fresh = serve(["--port", String(busy.port), "--db", join(dir, "new", "mgmt.sqlite")]);
    expect(await fresh.exit).toBe(1);
    expect(fresh.stderr()).toMatch(/EADDRINUSE|address already in use/);
    expect(existsSync(join(dir, "new"))).toBe(false);

    // An existing store: the same bytes, with or without --new-token, and the same token after.
    const db = join(dir, "kept", "mgmt.sqlite");
    const before = await startOnce(["--port", "0", "--db", db]);
    const files = snapshot(join(dir, "kept"));
    for (const extra of [[], ["--new-token"]]) {
      const failed = serve(["--port", String(busy.port), "--db", db, ...extra]);
      expect(await failed.exit).toBe(1);
      expect(snapshot(join(dir, "kept"))).toEqual(files);
    }
    expect((await startOnce(["--port", "0", "--db", db])).token).toBe(before.token);
  } finally {
    await busy.release();
  }
});

test("a Postgres store is shown without its password; its token is kept under MGMT_DATA_DIR, whatever the password", () => {
  const url = "postgresql://mgmt:s3cret@db.example:5432/mgmt?sslmode=disable&password=other";
  expect(storeLocation(url)).toBe("postgresql://mgmt:***@db.example:5432/mgmt?sslmode=disable&password=***");
  const env = { MGMT_DATA_DIR: "/data/mgmt" };
  const file = tokenFilePath(url, env)!;
  expect(file).toMatch(/^\/data\/mgmt\/postgres-[0-9a-f]{16}\.token$/);
  expect(file).not.toContain("s3cret");
  expect(tokenFilePath("postgresql://mgmt:changed@db.example:5432/mgmt?sslmode=disable&password=new", env)).toBe(file);
  expect(tokenFilePath("postgresql://mgmt@db.example:5432/other", env)).not.toBe(file);
  expect(tokenFilePath(":memory:", env)).toBeUndefined();
  expect(tokenFilePath("rel/mgmt.sqlite", env)).toBe(`${storeLocation("rel/mgmt.sqlite")}.token`);
});

test("docs/fixtures.md documents every section the loader accepts, and every example loads", async () => {
  const page = readFileSync(repoPath("docs/fixtures.md"), "utf8");
  for (const { key } of SECTIONS) expect(page).toContain(`### \`${key}\``);
  const examples = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { version: number });
  const shown = new Set(examples.flatMap((doc) => Object.keys(doc)));
  expect(SECTIONS.map((s) => s.key).filter((key) => !shown.has(key))).toEqual([]);
  for (const fixtures of examples) {
    const server = await startServer({ fixtures, logger: silentLogger });
    await server.close();
  }
});
