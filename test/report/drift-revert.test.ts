/** @tier engine */
/**
 * A plan that sets back edits made through the API, on each engine against a real `mgmt serve`: the
 * comment tells those lines from the pull request's own changes and counts them as drift.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MgmtClient } from "../../src/client";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { REVERT_NOTE } from "../../src/report/md";
import { sshKeyText } from "../../testkit/ssh-keys";
import { folds, runMgmt } from "./run-mgmt";

jest.setTimeout(300_000);

describe.each(availableEngines())("$name: drift the plan sets back", (engine: Engine) => {
  let server: RunningServer;
  let client: MgmtClient;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const deployKey = sshKeyText("ed25519", "deploy@test");

  const ok = async (...args: string[]) => {
    const r = await runEngine(engine, [...args, "-no-color"], dir, env);
    if (r.code !== 0) throw new Error(`${engine.name} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  const config = (redirect: string) =>
    writeFileSync(
      join(dir, "main.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
        provider: { mgmt: {} },
        resource: {
          mgmt_ssh_key: { deploy: { label: "ci-deploy", ssh_key: deployKey } },
          mgmt_oauth_client: { app: { label: "ci-app", redirect_uri: redirect } },
        },
      }),
    );
  const idOf = async (address: string): Promise<string> => {
    const state = JSON.parse((await runEngine(engine, ["show", "-json"], dir, env)).stdout) as {
      values: { root_module: { resources: { address: string; values: { id: string } }[] } };
    };
    return state.values.root_module.resources.find((r) => r.address === address)!.values.id;
  };

  beforeAll(async () => {
    server = await startServe(["--port", "0", "--db", ":memory:", "--no-default-fixtures"]);
    client = new MgmtClient({ url: server.url, token: server.token });
    dir = mkdtempSync(join(tmpdir(), `mgmt-revert-${engine.name}-`));
    env = engineEnvironment({ cliConfig: writeCliConfig(dir, "mirror"), url: server.url, token: server.token });
    config("https://app.example.com/callback");
    await ok("init");
    await ok("apply", "-auto-approve");
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("marks each line that only undoes an API edit, keeps the PR's own change plain, and counts the drift", async () => {
    await client.updateSshKey(Number(await idOf("mgmt_ssh_key.deploy")), { label: "ci-deploy-oob" });
    await client.updateOAuthClient(await idOf("mgmt_oauth_client.app"), { label: "ci-app-oob" });
    // The pull request changes the client's redirect_uri; the labels it leaves as they were.
    config("https://app.example.com/v2/callback");
    await ok("plan", "-out=pr.tfplan");
    const show = await runEngine(engine, ["show", "-json", "pr.tfplan"], dir, env);
    expect(show.code).toBe(0);
    const plan = JSON.parse(show.stdout) as { resource_drift?: { address: string }[] };
    expect((plan.resource_drift ?? []).map((d) => d.address).sort()).toEqual(["mgmt_oauth_client.app", "mgmt_ssh_key.deploy"]);

    const md = await runMgmt(["plan-report", "--detailed-exitcode"], { env, input: show.stdout });
    expect({ code: md.code, stderr: md.stderr }).toEqual({ code: 2, stderr: "" });
    expect(md.stdout.split("\n")[2]).toBe("**0 to add, 2 to change, 0 to replace, 0 to destroy, 0 to import** · 2 changed outside of Terraform");
    const f = folds(md.stdout);
    const update = f["Update in place"]!;
    expect(update).toContain(`- \`mgmt_ssh_key.deploy\`\n  - \`label\`: \`"ci-deploy-oob"\` → \`"ci-deploy"\` (${REVERT_NOTE})`);
    expect(update).toContain(`  - \`label\`: \`"ci-app-oob"\` → \`"ci-app"\` (${REVERT_NOTE})`);
    expect(update).toContain('  - `redirect_uri`: `"https://app.example.com/callback"` → `"https://app.example.com/v2/callback"`\n');
    expect(update.match(new RegExp(REVERT_NOTE.replace(/[()]/g, "\\$&"), "g"))).toHaveLength(2);
    const drift = f["Changed outside of Terraform"]!;
    expect(drift).toContain('`label`: `"ci-deploy"` → `"ci-deploy-oob"`');
    expect(drift).toContain('`label`: `"ci-app"` → `"ci-app-oob"`');

    const json = await runMgmt(["plan-report", "--format", "json"], { env, input: show.stdout });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { format_version: number; summary: { change: number; drift: number }; changes: Record<string, unknown>[] };
    expect(report).toMatchObject({ format_version: 1, summary: { change: 2, drift: 2 } });
    const byAddress = Object.fromEntries(report.changes.map((c) => [c.address, c]));
    expect(byAddress["mgmt_ssh_key.deploy"]).toMatchObject({ attributes: ["label"], reverts_drift: ["label"] });
    expect(byAddress["mgmt_oauth_client.app"]).toMatchObject({ attributes: expect.arrayContaining(["label", "redirect_uri"]), reverts_drift: ["label"] });
  });
});
