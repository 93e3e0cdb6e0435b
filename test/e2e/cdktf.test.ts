/**
 * One `cdktf deploy --skip-provider-lock` of examples/basic against a real `mgmt serve`, the way
 * a cdktf user runs it: generated bindings, OpenTofu as the engine, dev_overrides for the plugin.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { MgmtClient } from "../../src/client";
import { availableEngines, engineEnvironment, writeCliConfig } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { startServe, type RunningServer } from "../../src/harness/serve";

jest.setTimeout(300_000);

function cdktf(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [repoPath("node_modules/cdktf-cli/bundle/bin/cdktf"), ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

describe("cdktf deploy of examples/basic", () => {
  let server: RunningServer;
  let client: MgmtClient;
  let work: string;

  beforeAll(async () => {
    server = await startServe();
    client = new MgmtClient({ url: server.url, token: server.token });
    work = mkdtempSync(join(tmpdir(), "mgmt-cdktf-"));
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const labels = async (): Promise<string[]> => {
    const found: string[] = [];
    for await (const key of client.listSshKeys()) found.push(key.label);
    return found.sort();
  };

  it("deploys the stack with OpenTofu and keeps the token out of the synthesized JSON", async () => {
    // The server starts with its default fixtures (a lived-in account); the stack adds to them.
    const before = await labels();
    const tofu = availableEngines().find((e) => e.name === "tofu")!;
    const env = {
      ...engineEnvironment({ cliConfig: writeCliConfig(work, "mirror"), url: server.url, token: server.token }),
      PATH: `${dirname(tofu.binary)}${delimiter}${process.env.PATH ?? ""}`,
      TERRAFORM_BINARY_NAME: "tofu",
      CI: "1",
      FORCE_COLOR: "0",
    };
    // A project folder of its own, as a user has: cdktf.json there, state written there.
    const app = `node ${repoPath("scripts/run-ts.mjs")} ${repoPath("examples/basic/main.ts")}`;
    writeFileSync(join(work, "cdktf.json"), JSON.stringify({ language: "typescript", app, output: "cdktf.out", sendCrashReports: "false" }));
    const outdir = join(work, "cdktf.out");
    const outputsFile = join(work, "outputs.json");
    const deploy = await cdktf(work, ["deploy", "basic", "--skip-provider-lock", "--auto-approve", "--no-color", "--outputs-file", outputsFile, "--outputs-file-include-sensitive-outputs"], env);
    expect({ code: deploy.code, output: deploy.code === 0 ? "" : deploy.output }).toEqual({ code: 0, output: "" });

    const keys = [];
    for await (const key of client.listSshKeys()) keys.push(key);
    expect(keys.map((k) => k.label).sort()).toEqual([...before, "ci-deploy", "laptop"].sort());

    const outputs = JSON.parse(readFileSync(outputsFile, "utf8")) as { basic: Record<string, string> };
    expect(outputs.basic.username).toBe((await client.getProfile()).username);
    expect(keys.map((k) => String(k.id))).toContain(outputs.basic.laptop_key_id);
    const token = await client.getToken(Number(outputs.basic.reporting_token_id));
    expect(token).toMatchObject({ label: "reporting", scopes: "account:read_only events:read_only" });
    // The secrets are sensitive outputs: the value works, and it matches what the API shows of it.
    expect(outputs.basic.reporting_token!.slice(0, 16)).toBe(token.token);
    expect(await client.getOAuthClient(outputs.basic.dashboard_client_id!)).toMatchObject({ label: "Team dashboard" });
    expect(outputs.basic.dashboard_client_secret).toMatch(/\S{16,}/);
    expect(await client.getAccount()).toMatchObject({ email: "billing@example.com", zip: "19106" });
    expect((await client.getProfile()).timezone).toBe("Europe/Berlin");

    const synthesized = readFileSync(join(outdir, "stacks", "basic", "cdk.tf.json"), "utf8");
    for (const secret of [server.token, outputs.basic.reporting_token!, outputs.basic.dashboard_client_secret!]) expect(synthesized).not.toContain(secret);

    const destroy = await cdktf(work, ["destroy", "basic", "--skip-provider-lock", "--auto-approve", "--no-color"], env);
    expect({ code: destroy.code, output: destroy.code === 0 ? "" : destroy.output }).toEqual({ code: 0, output: "" });
    expect(await labels()).toEqual(before);
    await expect(client.getToken(Number(outputs.basic.reporting_token_id))).rejects.toMatchObject({ status: 404 });
    await expect(client.getOAuthClient(outputs.basic.dashboard_client_id!)).rejects.toMatchObject({ status: 404 });
    // The singletons are forgotten, not changed.
    expect(await client.getAccount()).toMatchObject({ email: "billing@example.com" });
  });
});
