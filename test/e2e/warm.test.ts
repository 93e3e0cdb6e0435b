/** @tier engine */
/**
 * `mgmt warm -- CMD` with real engines against real `mgmt serve`s: every engine command CMD runs
 * attaches to the one provider process (TF_REATTACH_PROVIDERS), and the engine starts none: the
 * CLI configuration points the provider at an empty folder, so a start would fail the command.
 * Each engine connection is a provider of its own (two provider blocks, two APIs, each key lands
 * in its own), what a connection configured is released when it ends (a child account's proxy
 * token is revoked), and the provider is gone when CMD ends.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { MgmtClient } from "../../src/client";
import { AUTOMATION_ENV, availableEngines, type Engine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { runProcess } from "../../src/harness/process";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { liveProxyTokens, seedChildAccount } from "../support/child-account";
import { sshKeyText } from "../../testkit/ssh-keys";

jest.setTimeout(300_000);

const ADMIN_TOKEN = "e2e-admin-warm-7c2e";

async function labels(client: MgmtClient): Promise<string[]> {
  const seen: string[] = [];
  for await (const k of client.listSshKeys()) seen.push(k.label);
  return seen.sort();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each(availableEngines())("$name through mgmt warm", (engine: Engine) => {
  let a: RunningServer;
  let b: RunningServer;
  let clientA: MgmtClient;
  let clientB: MgmtClient;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  /** `mgmt warm -- sh -c SCRIPT` in the stack's folder; the engine is $E there. */
  const warm = (script: string) => runProcess(process.execPath, [repoPath("dist/cli.js"), "warm", "--", "sh", "-c", script], { cwd: dir, env });

  beforeAll(async () => {
    const serveEnv = { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN };
    [a, b] = await Promise.all([startServe(undefined, serveEnv), startServe()]);
    clientA = new MgmtClient({ url: a.url, token: a.token });
    clientB = new MgmtClient({ url: b.url, token: b.token });
    dir = mkdtempSync(join(tmpdir(), `mgmt-warm-${engine.name}-`));
    const nowhere = join(dir, "no-provider-here");
    mkdirSync(nowhere);
    const cliConfig = join(dir, "cli.tfrc");
    writeFileSync(cliConfig, `provider_installation {\n  dev_overrides {\n    "${PROVIDER_SOURCE}" = "${nowhere}"\n  }\n  direct {}\n}\n`);
    env = { ...process.env, ...AUTOMATION_ENV, TF_CLI_CONFIG_FILE: cliConfig, MGMT_URL: a.url, MGMT_TOKEN: a.token, E: engine.binary };
  });
  afterAll(async () => {
    await Promise.all([clientA?.close(), clientB?.close()]);
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (config: Record<string, unknown>) =>
    writeFileSync(join(dir, "main.tf.json"), JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } }, ...config }));

  test("apply and a no-op plan attach to one provider, each provider block configured on its own", async () => {
    write({
      provider: { mgmt: [{}, { alias: "b", url: b.url, token: b.token }] },
      resource: {
        mgmt_ssh_key: {
          a: { label: "warm-a", ssh_key: sshKeyText("ed25519", "warm-a") },
          b: { provider: "mgmt.b", label: "warm-b", ssh_key: sshKeyText("ecdsa", "warm-b") },
        },
      },
    });
    const r = await warm(`"$E" apply -auto-approve -no-color && "$E" plan -detailed-exitcode -no-color && printf %s "$TF_REATTACH_PROVIDERS" > reattach.json`);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toMatch(/Apply complete! Resources: 2 added/);
    expect(r.stdout).toMatch(/No changes\./);
    expect(await labels(clientA)).toContain("warm-a");
    expect(await labels(clientA)).not.toContain("warm-b");
    expect(await labels(clientB)).toContain("warm-b");
    expect(await labels(clientB)).not.toContain("warm-a");

    // The provider ended with CMD, and took its socket's folder with it.
    const entry = (JSON.parse(readFileSync(join(dir, "reattach.json"), "utf8")) as Record<string, { Pid: number; Test: boolean; Addr: { String: string } }>)[
      PROVIDER_SOURCE
    ]!;
    expect(entry.Test).toBe(true);
    expect(alive(entry.Pid)).toBe(false);
    expect(existsSync(dirname(entry.Addr.String))).toBe(false);
  });

  test("destroy through a new warm provider removes both keys", async () => {
    const r = await warm(`"$E" destroy -auto-approve -no-color`);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(await labels(clientA)).not.toContain("warm-a");
    expect(await labels(clientB)).not.toContain("warm-b");
  });

  test("without the warm provider the engine cannot start one here: the check above is real", async () => {
    const r = await runProcess(engine.binary, ["plan", "-no-color"], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect((r.stderr + r.stdout).replace(/\s+/g, " ")).toMatch(/could not find executable file starting with terraform-provider-mgmt/);
  });

  test("a child account's proxy token is revoked when its engine connection ends, command after command", async () => {
    const child = await seedChildAccount(a.url, ADMIN_TOKEN, "Warm Child");
    try {
      write({
        provider: { mgmt: { child_account: { euuid: child.euuid } } },
        resource: { mgmt_ssh_key: { c: { label: "warm-child", ssh_key: sshKeyText("ed25519", "warm-child") } } },
      });
      const r = await warm(`"$E" apply -auto-approve -no-color && "$E" plan -detailed-exitcode -no-color && "$E" destroy -auto-approve -no-color`);
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(r.stdout).toMatch(/Destroy complete! Resources: 1 destroyed/);
      expect(await liveProxyTokens(child)).toEqual([]);
    } finally {
      await child.proxy.close();
    }
  });
});
