/** @tier engine */
/**
 * `mgmt plan-report` and `mgmt drift` on plans real engines make against a real `mgmt serve`: one
 * stack whose second plan creates, updates, replaces, destroys, imports, changes outputs and sees an
 * out-of-band change at once; then drift runs on the applied stack; then a plan of 2,000 resources.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MgmtClient } from "../../src/client";
import { TOKEN_PREFIX_LENGTH } from "../../src/contract/tokens";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine, type EngineResult } from "../../src/harness/engine";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { SENSITIVE } from "../../src/report/mask";
import { REVERT_NOTE } from "../../src/report/md";
import { parsePlanJson } from "../../src/report/plan-model";
import { summarize } from "../../src/report/summary";
import { sshKeyText } from "../../testkit/ssh-keys";
import { folds, runMgmt, type MgmtResult } from "./run-mgmt";

jest.setTimeout(300_000);

/** Put into sensitive places only; no report may ever contain it. */
const SECRET = "hunter2-SECRET-e1f0";
const NESTED_SECRET = "nested-SECRET-77ab";

interface ShownPlan {
  resource_changes?: { address: string; change: { actions: string[]; importing?: { id: string } } }[];
}

describe.each(availableEngines())("$name plans rendered by plan-report, stacks checked by drift", (engine: Engine) => {
  let server: RunningServer;
  let client: MgmtClient;
  let root: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let driftEnv: NodeJS.ProcessEnv;
  let tokenValue: string;
  const keys = Object.fromEntries(["a", "b", "c", "d", "e", "f", "g"].map((k) => [k, sshKeyText("ed25519", `${k}@test`)]));

  const run = (cwd: string, command: string, ...args: string[]): Promise<EngineResult> => runEngine(engine, [command, "-no-color", ...args], cwd, env);
  const ok = async (cwd: string, command: string, ...args: string[]): Promise<EngineResult> => {
    const r = await run(cwd, command, ...args);
    if (r.code !== 0) throw new Error(`${engine.name} ${command} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  const showPlan = async (cwd: string, planFile: string, jsonFile: string) => {
    const show = await runEngine(engine, ["show", "-json", planFile], cwd, env);
    expect(show.code).toBe(0);
    writeFileSync(join(cwd, jsonFile), show.stdout);
    return show.stdout;
  };
  const mgmt = (...args: string[]): Promise<MgmtResult> => runMgmt(args, { env, cwd: dir });
  const drift = (...args: string[]) => runMgmt(["drift", "--dir", dir, "--engine", engine.name, ...args], { env: driftEnv, cwd: dir });
  const idOf = async (address: string): Promise<number> => {
    const state = JSON.parse((await runEngine(engine, ["show", "-json"], dir, env)).stdout) as {
      values: { root_module: { resources: { address: string; values: { id: string } }[] } };
    };
    return Number(state.values.root_module.resources.find((r) => r.address === address)!.values.id);
  };
  const config = (body: Record<string, unknown>) =>
    writeFileSync(
      join(dir, "main.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
        provider: { mgmt: {} },
        variable: { secret_label: { type: "string", sensitive: true, default: SECRET }, nested: { type: "string", sensitive: true, default: NESTED_SECRET } },
        ...body,
      }),
    );
  const noSecret = (...texts: string[]) => {
    for (const t of texts) {
      expect(t).not.toContain(SECRET);
      expect(t).not.toContain(NESTED_SECRET);
      expect(t).not.toContain(tokenValue);
      // Nor the 16-character prefix the API shows of it.
      expect(t).not.toContain(tokenValue.slice(0, TOKEN_PREFIX_LENGTH));
    }
  };

  beforeAll(async () => {
    // Only the bootstrap account, so every live object is one this test made.
    server = await startServe(["--port", "0", "--db", ":memory:", "--no-default-fixtures"]);
    client = new MgmtClient({ url: server.url, token: server.token });
    // The drift job acts with a read-only token of its own, as docs/ci.md advises.
    const readOnly = await client.createToken({ label: "ci drift job", scopes: "account:read_only" });
    root = mkdtempSync(join(tmpdir(), `mgmt-report-${engine.name}-`));
    dir = join(root, "stack");
    mkdirSync(dir);
    env = engineEnvironment({ cliConfig: writeCliConfig(root, "mirror"), url: server.url, token: server.token });
    driftEnv = { ...env, MGMT_TOKEN: readOnly.token };
    config({
      resource: {
        mgmt_ssh_key: {
          updated: { label: "before", ssh_key: keys.a },
          replaced: { label: "replaced", ssh_key: keys.b },
          destroyed: { label: "destroyed", ssh_key: keys.c },
          drifted: { label: "drifted", ssh_key: keys.d },
        },
        // Destroyed by the mixed plan, whose JSON then carries the token's value as a sensitive `before`.
        mgmt_token: { doomed: { label: "doomed", scopes: "account:read_only" } },
      },
      output: { labels: { value: ["${mgmt_ssh_key.updated.label}"] }, secret: { value: { inner: ["${var.nested}"] }, sensitive: true } },
    });
    await ok(dir, "init");
    await ok(dir, "apply", "-auto-approve");
    const state = JSON.parse((await runEngine(engine, ["show", "-json"], dir, env)).stdout) as {
      values: { root_module: { resources: { address: string; values: { token?: string } }[] } };
    };
    tokenValue = state.values.root_module.resources.find((r) => r.address === "mgmt_token.doomed")!.values.token!;
    expect(tokenValue.length).toBeGreaterThan(TOKEN_PREFIX_LENGTH);
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("reports every change of a mixed plan under its heading, drift apart, secrets masked", async () => {
    await client.updateSshKey(await idOf("mgmt_ssh_key.drifted"), { label: "changed by hand" });
    const outside = await client.createSshKey({ label: "made elsewhere", ssh_key: keys.e });
    config({
      resource: {
        mgmt_ssh_key: {
          updated: { label: "after", ssh_key: keys.a },
          replaced: { label: "replaced", ssh_key: keys.f },
          drifted: { label: "drifted", ssh_key: keys.d },
          created: { label: "${var.secret_label}", ssh_key: keys.g },
          imported: { label: "made elsewhere", ssh_key: keys.e },
        },
      },
      import: [{ to: "mgmt_ssh_key.imported", id: String(outside.id) }],
      output: {
        labels: { value: ["${mgmt_ssh_key.updated.label}", "${mgmt_ssh_key.drifted.label}"] },
        secret: { value: { inner: ["${var.nested}", "${var.secret_label}"] }, sensitive: true },
      },
    });
    await ok(dir, "plan", "-out=mixed.tfplan");
    const planJson = await showPlan(dir, "mixed.tfplan", "mixed.json");
    // The engine's own JSON carries the secrets in clear (variables, planned values): the test can fail.
    expect(planJson).toContain(SECRET);
    expect(planJson).toContain(NESTED_SECRET);
    expect(planJson).toContain(tokenValue);

    // The pure parts on the engine's own JSON: masking, replace paths, reasons.
    const direct = summarize(parsePlanJson(planJson));
    expect(direct.groups.create[0]!.attributes.find((a) => a.name === "label")).toMatchObject({ before: undefined, after: SENSITIVE });
    expect(direct.groups.replace[0]!.attributes.filter((a) => a.forcesReplacement).map((a) => a.name)).toEqual(["ssh_key"]);
    expect(direct.groups.delete.map((e) => e.actionReason)).toEqual(["delete_because_no_resource_config", "delete_because_no_resource_config"]);
    expect(direct.groups.delete[1]!.attributes.find((a) => a.name === "token")).toMatchObject({ before: SENSITIVE, after: undefined });
    expect(direct.groups.import[0]!.importId).toBe(String(outside.id));

    const md = await mgmt("plan-report", "--plan", "mixed.json", "--title", "Plan: stack", "--detailed-exitcode");
    expect({ code: md.code, stderr: md.stderr }).toEqual({ code: 2, stderr: "" });
    noSecret(md.stdout);
    expect(md.stdout).toMatch(/^## Plan: stack\n\n\*\*1 to add, 2 to change, 1 to replace, 2 to destroy, 1 to import\*\* · 1 changed outside of Terraform\n/);
    expect(md.stdout).toContain("> [!WARNING]");
    const f = folds(md.stdout);
    const addresses = (body: string | undefined) => [...(body ?? "").matchAll(/^- `([^`]+)`/gm)].map((m) => m[1]);
    expect({
      create: addresses(f["Create"]),
      update: addresses(f["Update in place"]),
      replace: addresses(f["Replace"]),
      destroy: addresses(f["Destroy"]),
      import: addresses(f["Import"]),
      drift: addresses(f["Changed outside of Terraform"]),
      outputs: addresses(f["Outputs"]),
    }).toEqual({
      create: ["mgmt_ssh_key.created"],
      update: ["mgmt_ssh_key.drifted", "mgmt_ssh_key.updated"],
      replace: ["mgmt_ssh_key.replaced"],
      destroy: ["mgmt_ssh_key.destroyed", "mgmt_token.doomed"],
      import: ["mgmt_ssh_key.imported"],
      drift: ["mgmt_ssh_key.drifted"],
      outputs: ["labels", "secret"],
    });
    expect(f["Create"]).toContain("`label`: `(sensitive)`");
    expect(f["Update in place"]).toContain('`label`: `"before"` → `"after"`\n');
    // The plan sets the hand-made label back: said on that line, not shown as the pull request's change.
    expect(f["Update in place"]).toContain(`\`label\`: \`"changed by hand"\` → \`"drifted"\` (${REVERT_NOTE})`);
    expect(f["Replace"]).toMatch(/`ssh_key`: .* \*\*\(forces replacement\)\*\*/);
    expect(f["Import"]).toContain(`imported from id \`${outside.id}\``);
    expect(f["Changed outside of Terraform"]).toContain('`label`: `"drifted"` → `"changed by hand"`');
    expect(f["Outputs"]).toContain("`secret`: `(sensitive)` → `(sensitive)`");

    const json = await runMgmt(["plan-report", "--format", "json", "--detailed-exitcode"], { env, input: planJson });
    expect(json.code).toBe(2);
    noSecret(json.stdout);
    const report = JSON.parse(json.stdout) as { summary: unknown; drift: unknown; has_destroy: boolean; changes: { address: string; actions: string[] }[] };
    expect(report.summary).toEqual({ add: 1, change: 2, replace: 1, destroy: 2, import: 1, move: 0, drift: 1 });
    expect(report.drift).toEqual([{ address: "mgmt_ssh_key.drifted", type: "mgmt_ssh_key", actions: ["update"], attributes: ["label"] }]);
    expect(report.changes.filter((c) => "reverts_drift" in c)).toEqual([
      expect.objectContaining({ address: "mgmt_ssh_key.drifted", reverts_drift: ["label"] }),
    ]);
    expect(report.has_destroy).toBe(true);

    // State JSON is not a plan: a clear error and exit 1.
    const state = await runEngine(engine, ["show", "-json"], dir, env);
    const wrong = await runMgmt(["plan-report", "--detailed-exitcode"], { env, input: state.stdout });
    expect({ code: wrong.code, stdout: wrong.stdout }).toEqual({ code: 1, stdout: "" });
    expect(wrong.stderr).toMatch(/state JSON .* not a plan/);

    await ok(dir, "apply", "mixed.tfplan");
    await ok(dir, "plan", "-out=clean.tfplan");
    const clean = await runMgmt(["plan-report", "--detailed-exitcode"], { env, input: await showPlan(dir, "clean.tfplan", "clean.json") });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("**No changes.**");
  });

  it("drift: 0 on the applied stack, 2 after out-of-band changes and deletes, secrets masked", async () => {
    // A fresh checkout of the stack (configuration and state, no .terraform): drift runs init itself.
    const fresh = join(root, "fresh");
    mkdirSync(fresh);
    for (const f of ["main.tf.json", "terraform.tfstate"]) copyFileSync(join(dir, f), join(fresh, f));
    const quiet = await runMgmt(["drift", "--dir", fresh, "--engine", engine.name, "--format", "json"], { env: driftEnv });
    expect({ code: quiet.code, stderr: quiet.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(quiet.stdout)).toMatchObject({ summary: { drifted: 0, deleted: 0, unmanaged: 0 }, drift: [], has_drift: false });
    expect(existsSync(join(fresh, ".terraform"))).toBe(true);

    await client.updateSshKey(await idOf("mgmt_ssh_key.updated"), { label: "by hand" });
    // Its label in state is sensitive (it came from a sensitive variable): the old value must stay hidden.
    await client.updateSshKey(await idOf("mgmt_ssh_key.created"), { label: "relabelled" });
    const changed = await drift();
    expect(changed.code).toBe(2);
    noSecret(changed.stdout, changed.stderr);
    const f = folds(changed.stdout);
    expect(f["Changed outside of Terraform, state → live"]).toContain('`label`: `"after"` → `"by hand"`');
    expect(f["Changed outside of Terraform, state → live"]).toMatch(/`mgmt_ssh_key\.created`\n {2}- `label`: `\(sensitive\)` → /);

    await client.deleteSshKey(await idOf("mgmt_ssh_key.replaced"));
    const deleted = await drift("--format", "json");
    expect(deleted.code).toBe(2);
    noSecret(deleted.stdout);
    const report = JSON.parse(deleted.stdout) as { summary: unknown; drift: { address: string; actions: string[]; attributes: string[] }[] };
    expect(report.summary).toEqual({ drifted: 2, deleted: 1, unmanaged: 0 });
    expect(report.drift.map((d) => [d.address, d.actions, d.attributes])).toEqual([
      ["mgmt_ssh_key.created", ["update"], ["label"]],
      ["mgmt_ssh_key.replaced", ["delete"], []],
      ["mgmt_ssh_key.updated", ["update"], ["label"]],
    ]);
  });

  it("drift --unmanaged finds keys made outside the stack; its import blocks import exactly those", async () => {
    const strays = [
      await client.createSshKey({ label: "forgotten laptop", ssh_key: sshKeyText("ecdsa", "x@test") }),
      await client.createSshKey({ label: "9 lives", ssh_key: sshKeyText("ed25519", "y@test") }),
    ];
    const r = await drift("--unmanaged", "--import-out", join(dir, "imports.tf"), "--format", "json");
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as { unmanaged: { type: string; id: string; to: string }[]; known: { type: string; role: string; label: string }[] };
    // Nothing but the two keys: the bootstrap token and the token this run acts with are not noise.
    expect(report.unmanaged).toEqual([
      { type: "mgmt_ssh_key", id: String(strays[0]!.id), label: "forgotten laptop", to: "mgmt_ssh_key.forgotten_laptop" },
      { type: "mgmt_ssh_key", id: String(strays[1]!.id), label: "9 lives", to: "mgmt_ssh_key.ssh_key_" + strays[1]!.id + "_9_lives" },
    ]);
    expect(report.known.map((k) => [k.type, k.role, k.label.replace(/ \d{4}-.*$/, " <time>")]).sort()).toEqual([
      ["mgmt_token", "acting", "ci drift job"],
      ["mgmt_token", "bootstrap", "mgmt serve <time>"],
    ]);
    expect(readFileSync(join(dir, "imports.tf"), "utf8")).toContain(`import {\n  to = mgmt_ssh_key.forgotten_laptop\n  id = "${strays[0]!.id}"\n}`);

    await ok(dir, "plan", "-generate-config-out=generated.tf", "-out=import.tfplan");
    const plan = JSON.parse(await showPlan(dir, "import.tfplan", "import.json")) as ShownPlan;
    const imported = (plan.resource_changes ?? []).filter((c) => c.change.importing).map((c) => [c.address, c.change.importing!.id]);
    expect(imported.sort()).toEqual(report.unmanaged.map((u) => [u.to, u.id]).sort());
  });

  it("keeps the report of a 2,000-resource plan under the limit, saying what it left out", async () => {
    const big = join(root, "big");
    mkdirSync(big);
    writeFileSync(
      join(big, "main.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
        provider: { mgmt: {} },
        variable: { secret_label: { type: "string", sensitive: true, default: SECRET } },
        resource: { mgmt_ssh_key: { k: { count: 2000, label: "${var.secret_label}-${count.index}", ssh_key: keys.a } } },
      }),
    );
    await ok(big, "init");
    await ok(big, "plan", "-out=big.tfplan");
    const planJson = await showPlan(big, "big.tfplan", "big.json");
    for (const limit of [65_000, 20_000]) {
      const r = await runMgmt(["plan-report", "--max-chars", String(limit), "--detailed-exitcode"], { env, input: planJson });
      expect(r.code).toBe(2);
      expect(r.stdout.length).toBeLessThanOrEqual(limit);
      expect(r.stdout).toContain("**2,000 to add, 0 to change, 0 to replace, 0 to destroy, 0 to import**");
      expect(r.stdout).toMatch(/\*\*Shortened:\*\* .* left out to keep this under/);
      expect(r.stdout).toContain("<summary>Create (2,000)</summary>");
      noSecret(r.stdout);
    }
  });
});
