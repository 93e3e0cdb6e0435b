/** @tier cli */
/**
 * `mgmt warm` (dist/cli.js) around commands that are not engines: the reattach entry it hands
 * over, CMD's exit status, a bad TF_REATTACH_PROVIDERS refused before anything runs, and the
 * serve-until-stopped form without CMD. Real engines attaching are test/e2e/warm.test.ts.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { runProcess } from "../../src/harness/process";
import { repoPath } from "../../src/harness/paths";
import { reattachEntry, withReattach, type ReattachEntry } from "../../src/cli/reattach";
import { PROVIDER_SOURCE } from "../../src/provider/identity";

jest.setTimeout(60_000);

const mgmt = (args: string[], env: NodeJS.ProcessEnv = process.env) => runProcess(process.execPath, [repoPath("dist/cli.js"), "warm", ...args], { env });
const node = (script: string) => ["--", process.execPath, "-e", script];

describe("the reattach entry", () => {
  const entry = reattachEntry("1|6|unix|/tmp/tfplugin-x/plugin.sock|grpc\n", 42) as ReattachEntry;

  it("is go-plugin's ReattachConfig in test mode, from the handshake line", () => {
    expect(entry).toEqual({ Protocol: "grpc", ProtocolVersion: 6, Pid: 42, Test: true, Addr: { Network: "unix", String: "/tmp/tfplugin-x/plugin.sock" } });
  });

  it("refuses a line that is not a handshake", () => {
    expect(reattachEntry("hello", 1)).toEqual({ problem: "the provider printed 'hello', not a handshake line" });
    expect(reattachEntry("1|6|pipe|x|grpc", 1)).toHaveProperty("problem");
    expect(reattachEntry("1|6|unix|x|netrpc", 1)).toHaveProperty("problem");
  });

  it("keeps the providers a user already attaches", () => {
    const other = { "example.com/acme/other": { Protocol: "grpc", ProtocolVersion: 5, Pid: 7, Addr: { Network: "tcp", String: "127.0.0.1:9" } } };
    const merged = withReattach(JSON.stringify(other), PROVIDER_SOURCE, entry);
    expect("value" in merged && JSON.parse(merged.value)).toEqual({ ...other, [PROVIDER_SOURCE]: entry });
    expect(withReattach(undefined, PROVIDER_SOURCE, entry)).toEqual({ value: JSON.stringify({ [PROVIDER_SOURCE]: entry }) });
    expect(withReattach("  ", PROVIDER_SOURCE, entry)).toEqual({ value: JSON.stringify({ [PROVIDER_SOURCE]: entry }) });
  });

  it("names a value it cannot keep instead of dropping it", () => {
    expect(withReattach("{not json", PROVIDER_SOURCE, entry)).toEqual({ problem: expect.stringMatching(/^TF_REATTACH_PROVIDERS is set but is not JSON/) });
    expect(withReattach("[1]", PROVIDER_SOURCE, entry)).toEqual({ problem: expect.stringMatching(/not a JSON object/) });
  });
});

describe("mgmt warm", () => {
  it("gives CMD a provider that answers on the attached socket, and exits with CMD's status", async () => {
    // CMD dials the socket the entry names: the provider is listening while CMD runs.
    const script = `
      const e = JSON.parse(process.env.TF_REATTACH_PROVIDERS)[${JSON.stringify(PROVIDER_SOURCE)}];
      require("net").connect(e.Addr.String).on("connect", function () { this.destroy(); console.log(JSON.stringify(e)); process.exit(3); });`;
    const r = await mgmt(node(script));
    expect([r.code, r.stderr]).toEqual([3, ""]);
    const entry = JSON.parse(r.stdout) as ReattachEntry;
    expect(entry).toMatchObject({ Protocol: "grpc", ProtocolVersion: 6, Test: true, Addr: { Network: "unix" } });
    // Stopped with CMD: its socket's folder is gone and nothing answers there.
    expect(existsSync(dirname(entry.Addr.String))).toBe(false);
    await expect(new Promise((resolve, reject) => connect(entry.Addr.String).on("connect", resolve).on("error", reject))).rejects.toThrow(
      /ENOENT|ECONNREFUSED/,
    );
  });

  it("says what an interrupted CMD left after it ends, and nothing when CMD fails on its own", async () => {
    // CMD plays a terminal's Ctrl-C on mgmt (not a terminal here, so mgmt passes it on) and ends as an engine does on it.
    const interrupted = `process.on("SIGINT", () => process.exit(130)); process.kill(process.ppid, "SIGINT"); setInterval(() => {}, 1000);`;
    const r = await mgmt(node(interrupted));
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/^mgmt warm: interrupted \(Ctrl-C\)\. The state holds every object created before the stop/);
    expect(r.stderr).toContain("already exists outside the state");
    const failed = await mgmt(node("process.exit(1)"));
    expect([failed.code, failed.stderr]).toEqual([1, ""]);
  });

  it("refuses a TF_REATTACH_PROVIDERS it would have to overwrite, before running CMD", async () => {
    const r = await mgmt(node("console.log('ran')"), { ...process.env, TF_REATTACH_PROVIDERS: "{not json" });
    expect(r.code).toBe(125);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/mgmt warm: the provider could not start: TF_REATTACH_PROVIDERS is set but is not JSON .*; unset it or fix it/);
  });

  it("answers bad arguments with the usage", async () => {
    const nothing = await mgmt(["--"]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/nothing after '--'/);
    const unknown = await mgmt(["--fast"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--fast'/);
  });

  describe("an engine command with other settings than mgmt warm's", () => {
    // A stand-in engine on PATH: what the guard runs once it lets the command through.
    const bin = mkdtempSync(join(tmpdir(), "mgmt-warm-engine-"));
    afterAll(() => rmSync(bin, { recursive: true, force: true }));
    for (const name of ["tofu", "terraform"]) {
      writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} ran with $*"\nexit 4\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const started = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}`, MGMT_URL: "http://127.0.0.1:1/v4", MGMT_TOKEN: "token-A-secret" };
    const sh = (script: string) => mgmt(["--", "sh", "-c", script], started);

    it("runs when they are the same, with the engine's status", async () => {
      const r = await sh("tofu plan -no-color && echo not reached");
      expect([r.code, r.stdout, r.stderr]).toEqual([4, "tofu ran with plan -no-color\n", ""]);
    });

    it("refuses a different MGMT_TOKEN, without printing either token", async () => {
      const r = await sh("MGMT_TOKEN=token-B-secret terraform apply");
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /^mgmt warm: refusing to run terraform: its MGMT_TOKEN is not the provider's\. .*start mgmt warm with the same MGMT_URL and MGMT_TOKEN/,
      );
      expect(r.stderr).not.toMatch(/token-[AB]-secret/);
    });

    it("refuses a different MGMT_URL, naming both", async () => {
      const r = await sh("MGMT_URL=http://127.0.0.1:2/v4 tofu plan");
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/refusing to run tofu: its MGMT_URL is http:\/\/127\.0\.0\.1:2\/v4, the provider's http:\/\/127\.0\.0\.1:1\/v4\./);
    });

    it("checks an engine run by its path through MGMT_WARM_GUARD (the scaffold's tofu does)", async () => {
      const same = await sh(`"$MGMT_WARM_GUARD" ${join(bin, "tofu")} version`);
      expect([same.code, same.stdout]).toEqual([4, "tofu ran with version\n"]);
      const other = await sh(`MGMT_TOKEN=token-B-secret "$MGMT_WARM_GUARD" ${join(bin, "tofu")} version`);
      expect([other.code, other.stdout]).toEqual([1, ""]);
      expect(other.stderr).toMatch(/refusing to run tofu: its MGMT_TOKEN is not the provider's/);
    });

    it("hashes the token with node where neither sha256sum nor shasum is on PATH", async () => {
      const same = await sh(`PATH=${bin} "$MGMT_WARM_GUARD" ${join(bin, "tofu")} version`);
      expect([same.code, same.stdout, same.stderr]).toEqual([4, "tofu ran with version\n", ""]);
      const other = await sh(`MGMT_TOKEN=token-B-secret PATH=${bin} "$MGMT_WARM_GUARD" ${join(bin, "tofu")} version`);
      expect([other.code, other.stdout]).toEqual([1, ""]);
      expect(other.stderr).toMatch(/refusing to run tofu: its MGMT_TOKEN is not the provider's/);
    });

    it("refuses both differences at once, and names an engine missing from PATH", async () => {
      const both = await sh("MGMT_URL=http://127.0.0.1:2/v4 MGMT_TOKEN=token-B-secret tofu plan");
      expect(both.stderr).toMatch(
        /its MGMT_URL is http:\/\/127\.0\.0\.1:2\/v4, the provider's http:\/\/127\.0\.0\.1:1\/v4; its MGMT_TOKEN is not the provider's\. /,
      );
      const missing = await sh(`PATH="\${PATH%%:*}" tofu plan`);
      expect([missing.code, missing.stderr]).toEqual([127, "mgmt warm: no tofu on PATH\n"]);
    });
  });

  /** `mgmt warm` without CMD, up to its export line: the process, its reattach entry, and its stderr so far. */
  async function serving(env: NodeJS.ProcessEnv = process.env) {
    const child = spawn(process.execPath, [repoPath("dist/cli.js"), "warm"], { stdio: ["ignore", "pipe", "pipe"], env });
    const stderr: string[] = [];
    child.stderr.on("data", (d: Buffer) => stderr.push(d.toString()));
    const line = await new Promise<string>((resolve) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out);
      });
    });
    expect(line).toMatch(/^export TF_REATTACH_PROVIDERS='.*'\n$/);
    // What a shell makes of the line.
    const value = (await runProcess("sh", ["-c", `${line}printf %s "$TF_REATTACH_PROVIDERS"`])).stdout;
    const entry = (JSON.parse(value) as Record<string, ReattachEntry>)[PROVIDER_SOURCE]!;
    const ended = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    return { child, entry, ended, stderr, value };
  }

  it("without CMD prints the export line and serves until SIGTERM", async () => {
    const { child, entry, ended, stderr } = await serving();
    expect(existsSync(entry.Addr.String)).toBe(true);
    child.kill("SIGTERM");
    expect(await ended).toBe(0);
    expect(existsSync(dirname(entry.Addr.String))).toBe(false);
    expect(stderr.join("")).toBe(
      "mgmt warm: serving the provider to engines run with that variable; Ctrl-C stops it. It acts with this shell's MGMT_URL and MGMT_TOKEN, whatever the engine commands' are\n",
    );
  });

  it("without CMD prints a line a shell reads back exactly, quotes in the providers already attached included", async () => {
    const other = {
      "example.com/acme/other": { Protocol: "grpc", ProtocolVersion: 5, Pid: 7, Addr: { Network: "unix", String: "/tmp/it's here/plugin.sock" } },
    };
    const { child, ended, value } = await serving({ ...process.env, TF_REATTACH_PROVIDERS: JSON.stringify(other) });
    expect(JSON.parse(value)).toMatchObject(other);
    child.kill("SIGTERM");
    expect(await ended).toBe(0);
  });

  it("without CMD says so and exits 1 when the provider dies under it", async () => {
    const { entry, ended, stderr } = await serving();
    process.kill(entry.Pid, "SIGKILL");
    expect(await ended).toBe(1);
    expect(stderr.join("")).toMatch(/mgmt warm: the provider ended \(signal SIGKILL\)\n$/);
  });
});
