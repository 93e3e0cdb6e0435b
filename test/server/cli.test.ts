/** @tier cli */
/** `mgmt serve` as a real process: the ready line, a request, a clean stop on a signal. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleCli } from "./cli-bundle";
import { Profile } from "../../src/contract";
import { defaultDbPath, parseServeArgs } from "../../src/cli/serve";
import { ed25519Key } from "./sshkey-gen";

const root = join(__dirname, "..", "..");
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-cli-"));
  bundle = await bundleCli(dir);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first stdout line, parsed. */
  ready: Promise<{ url: string; token: string }>;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Run {
  // The bundle lives outside the repository; better-sqlite3 (external) resolves via NODE_PATH.
  const child = spawn(process.execPath, [bundle, ...args], {
    env: { ...process.env, MGMT_SERVE_TOKEN: "", NODE_PATH: join(root, "node_modules"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<{ url: string; token: string }>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      try {
        resolve(JSON.parse(out.slice(0, nl)) as { url: string; token: string });
      } catch {
        reject(new Error(`the first stdout line is not JSON: ${out.slice(0, nl)}`));
      }
    });
    void exit.then(({ code }) => reject(new Error(`exited ${code} before ready: ${err}`)));
  });
  return { child, stdout: () => out, stderr: () => err, exit, ready };
}

test.each(["SIGTERM", "SIGINT"] as const)("serve --port 0 --db :memory: prints one line, serves, and stops on %s with 0", async (signal) => {
  const proc = run(["serve", "--port", "0", "--db", ":memory:"]);
  const { url, token } = await proc.ready;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v4$/);
  expect(url).not.toMatch(/:0\/v4$/);
  expect(token).toMatch(/^[0-9a-f]{64}$/);

  const res = await fetch(`${url}/profile`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  Profile.parse(await res.json());

  proc.child.kill(signal);
  expect(await proc.exit).toEqual({ code: 0, signal: null });
  expect(proc.stdout().split("\n")).toEqual([expect.any(String), ""]);
  expect(proc.stderr()).toContain('"msg":"request"');
  expect(proc.stderr()).not.toContain(token);
});

test("serve --cors-origin: a browser page from that origin may read answers, from another it may not", async () => {
  const proc = run(["serve", "--port", "0", "--db", ":memory:", "--cors-origin", "https://app.example"]);
  const { url, token } = await proc.ready;
  try {
    for (const [origin, allowed] of [
      ["https://app.example", "https://app.example"],
      ["https://other.example", null],
    ] as const) {
      const res = await fetch(`${url}/profile`, { headers: { authorization: `Bearer ${token}`, origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(allowed);
    }
  } finally {
    proc.child.kill("SIGTERM");
    await proc.exit;
  }
});

test("a file store keeps state; MGMT_SERVE_TOKEN fixes the printed token", async () => {
  const db = join(dir, "data", "nested", "mgmt.sqlite");
  const fixed = "fixed-token-for-ci-0123456789";
  for (let i = 0; i < 2; i++) {
    const proc = run(["serve", "--port=0", `--db=${db}`, "--no-default-fixtures"], { MGMT_SERVE_TOKEN: fixed });
    const { url, token } = await proc.ready;
    expect(token).toBe(fixed);
    if (i === 0) {
      const created = await fetch(`${url}/profile/sshkeys`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ label: "persisted", ssh_key: ed25519Key() }),
      });
      expect(created.status).toBe(200);
    } else {
      const list = (await (await fetch(`${url}/profile/sshkeys`, { headers: { authorization: `Bearer ${token}` } })).json()) as { results: number };
      expect(list.results).toBe(1);
    }
    proc.child.kill("SIGTERM");
    expect((await proc.exit).code).toBe(0);
  }
});

test.each([
  [["--port", "abc"], /'--port' must be an integer/],
  [["--port", "70000"], /'--port' must be an integer/],
  [["--port"], /Option '--port <value>' argument missing/],
  [["--port="], /option '--port' needs a value/],
  [["--bogus"], /Unknown option '--bogus'/],
  [["extra"], /unexpected argument 'extra'/],
])("serve %p exits 2 naming the flag", async (args, message) => {
  const proc = run(["serve", ...args]);
  proc.ready.catch(() => {});
  expect((await proc.exit).code).toBe(2);
  expect(proc.stderr()).toMatch(message);
  expect(proc.stdout()).toBe("");
});

test("a bad MGMT_SERVE_TOKEN exits 2", async () => {
  const proc = run(["serve", "--port", "0"], { MGMT_SERVE_TOKEN: "has spaces in it" });
  proc.ready.catch(() => {});
  expect((await proc.exit).code).toBe(2);
  expect(proc.stderr()).toMatch(/MGMT_SERVE_TOKEN/);
});

test("a port in use exits 1 with a message", async () => {
  const first = run(["serve", "--port", "0", "--db", ":memory:"]);
  const { url } = await first.ready;
  const port = new URL(url).port;
  const second = run(["serve", "--port", port, "--db", ":memory:"]);
  second.ready.catch(() => {});
  expect((await second.exit).code).toBe(1);
  expect(second.stderr()).toMatch(/EADDRINUSE|address already in use/);
  first.child.kill("SIGTERM");
  expect((await first.exit).code).toBe(0);
});

test("--help prints the usage and exits 0", async () => {
  const proc = run(["serve", "--help"]);
  proc.ready.catch(() => {});
  expect((await proc.exit).code).toBe(0);
  expect(proc.stdout()).toMatch(/usage: mgmt serve/);
  expect(proc.stdout()).toMatch(/default 8080/);
});

describe("flag parsing", () => {
  test("defaults", () => {
    expect(parseServeArgs([], { HOME: "/home/u" })).toEqual({
      values: { port: 8080, host: "127.0.0.1", db: expect.stringMatching(/mgmt\/mgmt\.sqlite$/) },
      positionals: [],
    });
  });

  test("the default store follows MGMT_DATA_DIR, then XDG_DATA_HOME", () => {
    expect(defaultDbPath({ MGMT_DATA_DIR: "/data/m", XDG_DATA_HOME: "/xdg" })).toBe("/data/m/mgmt.sqlite");
    expect(defaultDbPath({ XDG_DATA_HOME: "/xdg" })).toBe("/xdg/mgmt/mgmt.sqlite");
    expect(defaultDbPath({})).toMatch(/\.local\/share\/mgmt\/mgmt\.sqlite$/);
  });

  test("a postgres:// or postgresql:// --db, or MGMT_DATABASE_URL when --db is not given", () => {
    const url = "postgresql://u:p@db.example:5432/mgmt";
    expect(parseServeArgs(["--db", url], {})).toEqual({ values: { port: 8080, host: "127.0.0.1", db: url }, positionals: [] });
    expect(parseServeArgs([], { MGMT_DATABASE_URL: "postgres://h/m" })).toMatchObject({ values: { db: "postgres://h/m" } });
    expect(parseServeArgs(["--db", ":memory:"], { MGMT_DATABASE_URL: "postgres://h/m" })).toMatchObject({ values: { db: ":memory:" } });
    expect(parseServeArgs([], { MGMT_DATABASE_URL: "/tmp/x.sqlite" })).toEqual({ problem: expect.stringMatching(/MGMT_DATABASE_URL must be a postgres/) });
  });

  test("--cors-origin: repeatable, each an origin (serialized) or '*'", () => {
    const parsed = parseServeArgs(["--cors-origin", "https://App.example:443/", "--cors-origin=http://localhost:3000", "--db", ":memory:"], {});
    expect(parsed).toMatchObject({ values: { corsOrigins: ["https://app.example", "http://localhost:3000"] } });
    expect(parseServeArgs(["--cors-origin", "*", "--db", ":memory:"], {})).toMatchObject({ values: { corsOrigins: ["*"] } });
    for (const bad of ["https://app.example/path", "app.example", "", "https://u@app.example", "file:///tmp"]) {
      expect([bad, parseServeArgs(["--cors-origin", bad], {})]).toEqual([bad, { problem: expect.stringMatching(/--cors-origin/) }]);
    }
  });

  test("both --flag value and --flag=value", () => {
    expect(parseServeArgs(["--port=0", "--host", "::1", "--db", ":memory:"], {})).toEqual({
      values: { port: 0, host: "::1", db: ":memory:" },
      positionals: [],
    });
  });
});
