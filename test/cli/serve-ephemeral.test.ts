/** @tier cli */
/**
 * `mgmt serve --ephemeral -- CMD` (dist/cli.js) as a CI job or a person meets it: CMD reaches a
 * working API through MGMT_URL and MGMT_TOKEN, mgmt exits with CMD's status (128 + N for a
 * signal), signals reach CMD, the server is gone afterwards, and the fixtures flags apply.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";

jest.setTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), "mgmt-ephemeral-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const baseEnv = { ...process.env, MGMT_SERVE_TOKEN: "", MGMT_ADMIN_TOKEN: "", MGMT_DATABASE_URL: "", MGMT_URL: "", MGMT_TOKEN: "" };

interface Ended {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `mgmt serve ARGS`; `onOutput` sees stdout as it grows and gets the process, to signal it. */
function mgmt(
  args: string[],
  { env = baseEnv, onOutput }: { env?: NodeJS.ProcessEnv; onOutput?: (stdout: string, send: (s: NodeJS.Signals) => void) => void } = {},
): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [repoPath("dist/cli.js"), "serve", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      onOutput?.(stdout, (s) => child.kill(s));
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** CMD as node running `script`. */
const node = (script: string): string[] => ["--", process.execPath, "-e", script];

/** A CMD that reads the profile and the SSH keys through the API it was given, and prints what it saw as one JSON line. */
const CALL_API = `
(async () => {
  const get = (path) => fetch(process.env.MGMT_URL + path, { headers: { authorization: "Bearer " + process.env.MGMT_TOKEN } });
  const profile = await get("/profile");
  const keys = await (await get("/profile/sshkeys")).json();
  console.log(JSON.stringify({ url: process.env.MGMT_URL, status: profile.status, username: (await profile.json()).username, keys: keys.data.map((k) => k.label) }));
})().catch((err) => { console.error(err); process.exit(9); });
`;
const seen = (r: Ended) => JSON.parse(r.stdout) as { url: string; status: number; username: string; keys: string[] };

describe("mgmt serve --ephemeral", () => {
  it("gives the command a working MGMT_URL and MGMT_TOKEN, then stops the server", async () => {
    const r = await mgmt(["--ephemeral", ...node(CALL_API)]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
    const what = seen(r);
    expect(what).toMatchObject({ status: 200, username: "admin" });
    expect(what.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v4$/);
    // The default fixtures are there, as with `mgmt serve`.
    expect(what.keys.length).toBeGreaterThan(0);
    // Nothing listens there any more.
    await expect(fetch(`${what.url}/profile`)).rejects.toThrow();
  });

  it("exits with the command's status", async () => {
    expect((await mgmt(["--ephemeral", ...node("process.exit(0)")])).status).toBe(0);
    expect((await mgmt(["--ephemeral", ...node("process.exit(3)")])).status).toBe(3);
    expect((await mgmt(["--ephemeral", "--", "sh", "-c", "exit 42"])).status).toBe(42);
  });

  it("exits with 128 + the signal's number when a signal ended the command", async () => {
    expect((await mgmt(["--ephemeral", ...node("process.kill(process.pid, 'SIGKILL')")])).status).toBe(128 + 9);
    expect((await mgmt(["--ephemeral", ...node("process.kill(process.pid, 'SIGTERM')")])).status).toBe(128 + 15);
  });

  it("passes SIGTERM and SIGINT on to the command, and exits as it does", async () => {
    const WAITS = `console.log("waiting"); setInterval(() => {}, 1000);`;
    const handles = (signal: string) => `process.on("${signal}", () => { console.log("got ${signal}"); process.exit(7); }); ${WAITS}`;
    const once = (signal: NodeJS.Signals) => {
      let sent = false;
      return (stdout: string, send: (s: NodeJS.Signals) => void) => {
        if (!sent && stdout.includes("waiting")) {
          sent = true;
          send(signal);
        }
      };
    };
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const handled = await mgmt(["--ephemeral", ...node(handles(signal))], { onOutput: once(signal) });
      expect({ signal, status: handled.status, stdout: handled.stdout }).toEqual({ signal, status: 7, stdout: `waiting\ngot ${signal}\n` });
    }
    // A command that does not handle it dies of it, and mgmt reports that as a shell would.
    const killed = await mgmt(["--ephemeral", ...node(WAITS)], { onOutput: once("SIGTERM") });
    expect(killed.status).toBe(128 + 15);
  });

  it("honours --no-default-fixtures and --fixtures FILE", async () => {
    const empty = await mgmt(["--ephemeral", "--no-default-fixtures", ...node(CALL_API)]);
    expect(empty.status).toBe(0);
    expect(seen(empty).keys).toEqual([]);
    const file = join(dir, "fixtures.json");
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        ssh_keys: [{ label: "from the file", ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICxvc9a8mBUBH/zQyKzQ1xbGagWn0w5kRtpGo8Jg+uRW ci@runner" }],
      }),
    );
    const fromFile = await mgmt(["--ephemeral", "--fixtures", file, ...node(CALL_API)]);
    expect(fromFile.status).toBe(0);
    expect(seen(fromFile).keys).toEqual(["from the file"]);
  });

  it("keeps the store in memory whatever MGMT_DATABASE_URL names, and sets the token MGMT_SERVE_TOKEN fixes", async () => {
    const r = await mgmt(["--ephemeral", ...node("console.log(process.env.MGMT_TOKEN)")], {
      env: { ...baseEnv, MGMT_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", MGMT_SERVE_TOKEN: "fixed-token-1" },
    });
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 0, stdout: "fixed-token-1\n" });
  });

  it("does not run the command when the server cannot start, and says why", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ version: 1, ssh_keys: [{ ssh_key: "not a key" }] }));
    const r = await mgmt(["--ephemeral", "--fixtures", bad, ...node("console.log('ran')")]);
    expect(r.status).toBe(125);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("bad.json");
  });

  it("reports a command that cannot be found with 127", async () => {
    const r = await mgmt(["--ephemeral", "--", join(dir, "no-such-command")]);
    expect(r.status).toBe(127);
    expect(r.stderr).toContain("no-such-command");
  });

  it("refuses a missing command, --db, --port and --new-token, naming them, with the usage", async () => {
    const cases: [string[], string][] = [
      [["--ephemeral"], "needs a command to run after '--'"],
      [["--ephemeral", "--"], "needs a command to run after '--'"],
      [["--ephemeral", "--db", "x.sqlite", "--", "true"], "option '--db' cannot be used with --ephemeral"],
      [["--ephemeral", "--port=8080", "--", "true"], "option '--port' cannot be used with --ephemeral"],
      [["--new-token", "--ephemeral", "--", "true"], "option '--new-token' cannot be used with --ephemeral"],
      [["--ephemeral", "--rate-limit", "0", "--", "true"], "option '--rate-limit' must be a positive integer"],
      [["--", "true"], "a command after '--' runs only with --ephemeral"],
    ];
    for (const [args, message] of cases) {
      const r = await mgmt(args);
      expect({ args, status: r.status, stdout: r.stdout }).toEqual({ args, status: 2, stdout: "" });
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain("usage: mgmt serve");
    }
  });

  it("takes --ephemeral after '--' as the command's own argument", async () => {
    const r = await mgmt(["--ephemeral", "--", "sh", "-c", 'echo "$@"', "sh", "--ephemeral", "--db", "x"]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 0, stdout: "--ephemeral --db x\n" });
  });
});
