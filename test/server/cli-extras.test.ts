/** @tier cli */
/** `mgmt serve` flags of the admin namespace, fixtures, rate limiting and timeouts, as a real process. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleCli } from "./cli-bundle";
import { rawHttp } from "./helpers";

const root = join(__dirname, "..", "..");
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-cli-extras-"));
  bundle = await bundleCli(dir);
}, 60_000);
afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

type Ready = { url: string; token: string; admin_url: string; admin_token: string; store_writable: boolean };

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [bundle, "serve", "--port", "0", "--db", ":memory:", ...args], {
    env: { ...process.env, MGMT_SERVE_TOKEN: "", MGMT_ADMIN_TOKEN: "", NODE_PATH: join(root, "node_modules"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<Ready>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(JSON.parse(out.slice(0, out.indexOf("\n"))) as Ready);
    });
    void exit.then((code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  ready.catch(() => {});
  const stop = async () => {
    child.kill("SIGTERM");
    return exit;
  };
  return { ready, exit, stop, stderr: () => err };
}

const get = async (url: string, token: string) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};

describe("mgmt serve", () => {
  test("the ready line has admin_url and admin_token; the defaults are loaded", async () => {
    const proc = run([]);
    const ready = await proc.ready;
    expect(ready.admin_url).toBe(ready.url.replace(/\/v4$/, "/__admin"));
    expect(ready.admin_token).toMatch(/^[0-9a-f]{64}$/);
    expect((await get(`${ready.admin_url}/clock`, ready.admin_token)).status).toBe(200);
    // A store that can write says so at start, and the readiness answer agrees.
    expect(ready.store_writable).toBe(true);
    expect((await get(`${ready.admin_url}/ready`, ready.admin_token)).status).toBe(200);
    expect((await get(`${ready.url}/profile/logins`, ready.token)).body.results).toBeGreaterThan(0);
    expect(proc.stderr()).not.toContain(ready.admin_token);
    expect(await proc.stop()).toBe(0);
  });

  test("--no-default-fixtures, --rate-limit, MGMT_ADMIN_TOKEN", async () => {
    const proc = run(["--no-default-fixtures", "--rate-limit", "50"], { MGMT_ADMIN_TOKEN: "ci-admin" });
    const ready = await proc.ready;
    expect(ready.admin_token).toBe("ci-admin");
    const logins = await get(`${ready.url}/profile/logins`, ready.token);
    expect(logins.body.results).toBe(0);
    expect(logins.headers.get("x-ratelimit-limit")).toBe("50");
    expect(await proc.stop()).toBe(0);
  });

  test("--request-timeout, --headers-timeout: a request that stalls is answered 408", async () => {
    const proc = run(["--request-timeout", "300", "--headers-timeout=200"]);
    const ready = await proc.ready;
    const port = Number(new URL(ready.url).port);
    // Headers promising a body that never comes; the server must answer and close, not wait.
    const answer = await rawHttp(port, [
      `POST /v4/profile/sshkeys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ready.token}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{`,
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('{"errors":[{"reason":"The request was not received in time"}]}');
    expect(await proc.stop()).toBe(0);
  });

  test("--fixtures FILE; a bad file exits 1 naming the JSON path", async () => {
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify({ version: 1, logins: [{ ip: "192.0.2.9" }] }));
    const proc = run(["--fixtures", good]);
    const ready = await proc.ready;
    expect((await get(`${ready.url}/profile/logins`, ready.token)).body.results).toBe(1);
    expect(await proc.stop()).toBe(0);

    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ version: 1, logins: [{ ip: "not-an-ip" }] }));
    const failing = run(["--fixtures", bad]);
    expect(await failing.exit).toBe(1);
    expect(failing.stderr()).toContain("$.logins[0].ip");
  });

  test.each([
    [["--rate-limit", "0"], /'--rate-limit' must be a positive integer/],
    [["--rate-limit", "x"], /'--rate-limit' must be a positive integer/],
    [["--fixtures"], /Option '--fixtures <value>' argument missing/],
    [["--request-timeout", "0"], /'--request-timeout' must be a positive number of milliseconds/],
    [["--headers-timeout", "1.5"], /'--headers-timeout' must be a positive number of milliseconds/],
  ])("serve %p exits 2", async (args, message) => {
    const proc = run(args);
    expect(await proc.exit).toBe(2);
    expect(proc.stderr()).toMatch(message);
  });

  test("a bad MGMT_ADMIN_TOKEN exits 2", async () => {
    const proc = run([], { MGMT_ADMIN_TOKEN: "has spaces" });
    expect(await proc.exit).toBe(2);
    expect(proc.stderr()).toMatch(/MGMT_ADMIN_TOKEN/);
  });
});
