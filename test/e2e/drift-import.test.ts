/** @tier engine */
/**
 * `mgmt drift --unmanaged --import-out imports.ts`, end to end with OpenTofu: a cdktf app outside
 * the repository (the bindings package and cdktf as a team's project has them) deployed against a
 * `mgmt serve` that holds objects the stack does not manage; drift writes the module, the stack
 * calls importUnmanaged(this), and the next plan only imports (no create, update or destroy). Then
 * a fresh checkout (the source and the state, no cdktf.out or .terraform) plans no changes, and
 * drift finds the account clean. The same with Terraform, in a repository from `mgmt init` and
 * through its drift workflow, is test/e2e/team-repo-terraform.test.ts; what only this file shows
 * is a label that needs escaping at every step, and an object deleted while drift runs.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MgmtClient } from "../../src/client";
import { availableEngines, runEngine, type Engine } from "../../src/harness/engine";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { runMgmt } from "../report/run-mgmt";
import { BINDINGS, cdktfEnvironment, cdktfProject, synthApp } from "../support/cdktf-app";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { FaultProxy } from "../../testkit/fault-proxy";
import { liveProxyTokens, seedChildAccount } from "../support/child-account";
import { sshKeyText } from "../../testkit/ssh-keys";

jest.setTimeout(600_000);

const STACK = "account";
const ADMIN_TOKEN = "e2e-admin-drift-import-51a9";

/** The stack's source; with `imports`, it adopts what drift found. */
const mainTs = (key: string, imports: boolean) => `import { App, LocalBackend, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { provider, sshKey } from "${BINDINGS}";
${imports ? 'import { importUnmanaged } from "./imports";\n' : ""}
class Account extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // The state lives beside the source, where a team's remote backend would keep it for every checkout.
    new LocalBackend(this, { path: process.env.STATE_FILE ?? "terraform.tfstate" });
    new provider.MgmtProvider(this, "mgmt", {});
    new sshKey.SshKey(this, "laptop", { label: "laptop", sshKey: ${JSON.stringify(key)} });${imports ? "\n    importUnmanaged(this);" : ""}
  }
}

const app = new App();
new Account(app, ${JSON.stringify(STACK)});
app.synth();
`;

interface PlanJson {
  resource_changes?: { address: string; change: { actions: string[]; importing?: { id: string } } }[];
}

describe("drift imports as cdktf code, with OpenTofu", () => {
  const engine: Engine = availableEngines().find((e) => e.name === "tofu")!;
  let server: RunningServer;
  let client: MgmtClient;
  let work: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    server = await startServe(undefined, { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN });
    client = new MgmtClient({ url: server.url, token: server.token });
    work = mkdtempSync(join(tmpdir(), `mgmt-drift-import-${engine.name}-`));
    env = cdktfEnvironment(engine, work, server.url, server.token);
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const project = (name: string) => cdktfProject(work, name);

  /** tsc, then the app: returns the synthesized stack's folder. */
  async function synth(dir: string, state: string): Promise<string> {
    const r = await synthApp(dir, env, state, STACK);
    if (r.code !== 0) throw new Error(`synth exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r.stackDir;
  }

  const tf = async (dir: string, ...args: string[]) => {
    const r = await runEngine(engine, [...args.slice(0, 1), "-no-color", ...args.slice(1)], dir, env);
    if (r.code !== 0) throw new Error(`${engine.name} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };

  const drift = (stackDir: string, ...extra: string[]) =>
    runMgmt(["drift", "--dir", stackDir, "--engine", engine.name, "--unmanaged", "--format", "json", ...extra], { env });

  it("adopts every unmanaged object by code that survives a fresh checkout", async () => {
    // Beyond the default fixtures' SSH key, OAuth clients and tags: a key whose label needs escaping,
    // and a token with scopes and an expiry.
    const oddLabel = 'dev "box" \\ ${x}\n%{y}';
    const odd = await client.createSshKey({ label: oddLabel, ssh_key: sshKeyText("ed25519", "odd@example") });
    const tokenMade = await client.createToken({ label: "old laptop", scopes: "account:read_only", expiry: "2030-01-01T00:00:00" });

    const app = project("app");
    const state = join(app, "terraform.tfstate");
    const laptopKey = sshKeyText("ed25519", "laptop@example");
    writeFileSync(join(app, "main.ts"), mainTs(laptopKey, false));
    let stackDir = await synth(app, state);
    await tf(stackDir, "init");
    await tf(stackDir, "apply", "-auto-approve");

    // Drift finds what the stack does not manage and writes the module into the app's source.
    const found = await drift(stackDir, "--import-out", join(app, "imports.ts"));
    expect({ code: found.code, stderr: found.stderr }).toEqual({ code: 2, stderr: "" });
    const unmanaged = (JSON.parse(found.stdout) as { unmanaged: { type: string; id: string }[] }).unmanaged;
    expect(unmanaged).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "mgmt_ssh_key", id: String(odd.id) }),
        expect.objectContaining({ type: "mgmt_token", id: String(tokenMade.id) }),
        expect.objectContaining({ type: "mgmt_oauth_client" }),
        expect.objectContaining({ type: "mgmt_tag" }),
      ]),
    );
    const module = readFileSync(join(app, "imports.ts"), "utf8");
    expect(module).toContain(`from "${BINDINGS}";`);
    expect(module).toContain("export function importUnmanaged(scope: Construct): void {");
    expect(module).not.toContain('"laptop"');
    expect(module).toContain("// token: a secret the API shows only when it is created; unset after the import.");
    expect(module).toContain("// secret: a secret the API shows only when it is created; unset after the import.");
    expect(module).not.toContain(server.token);

    // The stack calls it; the plan imports each object and changes, creates and destroys nothing.
    writeFileSync(join(app, "main.ts"), mainTs(laptopKey, true));
    stackDir = await synth(app, state);
    await tf(stackDir, "plan", "-out=import.tfplan");
    const plan = JSON.parse(await tf(stackDir, "show", "-json", "import.tfplan")) as PlanJson;
    const changes = plan.resource_changes ?? [];
    expect(changes.filter((c) => c.change.actions.join() !== "no-op").map((c) => [c.address, c.change.actions])).toEqual([]);
    expect(
      changes
        .filter((c) => c.change.importing)
        .map((c) => c.change.importing!.id)
        .sort(),
    ).toEqual(unmanaged.map((u) => u.id).sort());
    await tf(stackDir, "apply", "import.tfplan");
    // The odd label came through cdktf's JSON and the engine unchanged.
    expect((await client.getSshKey(odd.id)).label).toBe(oddLabel);

    // A fresh checkout: the source and the state only.
    const fresh = project("fresh");
    for (const f of ["main.ts", "imports.ts"]) copyFileSync(join(app, f), join(fresh, f));
    copyFileSync(state, join(fresh, "terraform.tfstate"));
    const freshStack = await synth(fresh, join(fresh, "terraform.tfstate"));
    await tf(freshStack, "init");
    const r = await runEngine(engine, ["plan", "-no-color", "-detailed-exitcode"], freshStack, env);
    expect({ code: r.code, output: r.code === 0 ? "" : r.stdout + r.stderr }).toEqual({ code: 0, output: "" });

    const clean = await drift(freshStack);
    expect({ code: clean.code, stderr: clean.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(clean.stdout)).toMatchObject({ summary: { drifted: 0, deleted: 0, unmanaged: 0 }, has_drift: false });
  });
  it("leaves out, and names on stderr, an object deleted between its listing and its read", async () => {
    // A configuration that manages nothing: every live object is unmanaged.
    const dir = join(work, "empty");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "main.tf.json"),
      JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } }, provider: { mgmt: {} } }),
    );
    const doomed = await client.createSshKey({ label: "doomed", ssh_key: sshKeyText("ed25519", "doomed@example") });
    const kept = await client.createSshKey({ label: "kept", ssh_key: sshKeyText("ed25519", "kept@example") });
    // The listing still shows the key; by the time drift reads it to write its code, it is gone.
    const proxy = await FaultProxy.start(server.url);
    proxy.rule = (method, path) => (method === "GET" && path === `/profile/sshkeys/${doomed.id}` ? { kind: "status", status: 404 } : undefined);
    try {
      const out = join(work, "gone-imports.ts");
      const r = await runMgmt(["drift", "--dir", dir, "--engine", engine.name, "--unmanaged", "--format", "json", "--import-out", out], {
        env: { ...env, MGMT_URL: proxy.url },
      });
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 2,
        stderr: `mgmt drift: mgmt_ssh_key "${doomed.id}" (label "doomed") was deleted while drift ran; left out\n`,
      });
      expect(proxy.counters.seen).toContain("GET /profile/sshkeys");
      const ids = (JSON.parse(r.stdout) as { unmanaged: { type: string; id: string }[] }).unmanaged.filter((u) => u.type === "mgmt_ssh_key").map((u) => u.id);
      expect(ids).toContain(String(kept.id));
      expect(ids).not.toContain(String(doomed.id));
      const module = readFileSync(out, "utf8");
      expect(module).toContain('label: "kept"');
      expect(module).not.toContain("doomed");
    } finally {
      await proxy.close();
    }
  });

  it("lists and imports a child account's objects when the stack's provider acts in it, and leaves no proxy token behind", async () => {
    const child = await seedChildAccount(server.url, ADMIN_TOKEN, "Drift Child");
    try {
      const childKey = await child.proxy.createSshKey({ label: "child-only", ssh_key: sshKeyText("ed25519", "child-only@example") });
      const parentKey = await client.createSshKey({ label: "parent-only", ssh_key: sshKeyText("ed25519", "parent-only@example") });
      const dir = join(work, "child");
      mkdirSync(dir);
      writeFileSync(
        join(dir, "main.tf.json"),
        JSON.stringify({
          terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
          provider: { mgmt: { child_account: { euuid: child.euuid } } },
        }),
      );
      const out = join(work, "child-imports.tf");
      const r = await drift(dir, "--import-out", out);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: "" });
      const keys = (JSON.parse(r.stdout) as { unmanaged: { type: string; id: string }[] }).unmanaged.filter((u) => u.type === "mgmt_ssh_key").map((u) => u.id);
      expect(keys).toEqual([String(childKey.id)]);
      expect(keys).not.toContain(String(parentKey.id));
      expect(readFileSync(out, "utf8")).toContain(`id = "${childKey.id}"`);
      // The proxy tokens drift and the engine's provider minted are revoked.
      expect(await liveProxyTokens(child)).toEqual([]);
    } finally {
      await child.proxy.close();
    }
  });
});
