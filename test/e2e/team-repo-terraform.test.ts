/** @tier npm */
/**
 * `mgmt init --engine terraform --backend pg` end to end with the `terraform` on PATH: the scaffold
 * with the run's one npm install of the scaffold's packages linked (test/support/scaffold-install.ts), then used as a team would: install the provider, synthesize, plan, apply
 * and re-plan against `mgmt serve` with the state in Postgres, `npm test` as generated (terraform
 * test through `mgmt serve --ephemeral`), and the GitHub jobs run as a runner would (the plan comment,
 * the drift issue). Then drift imported as code, as the drift job delivers it: objects made outside
 * the stack through the API, the job's imports.ts saved into the repository and called by the stack,
 * an apply that only imports, and a fresh clone whose plan is empty and whose drift check is clean.
 * The jobs start from node_modules already cached (the install is what test/e2e/team-repo.test.ts
 * proves with a cold cache, and costs minutes).
 */
import { cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MgmtClient } from "../../src/client";
import { runProcess } from "../../src/harness/process";
import type { RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../../src/provider/identity";
import { runPostgres } from "../global/run-postgres";
import { installedScaffold, linkInstalled } from "../support/scaffold-install";
import { sshKeyText } from "../../testkit/ssh-keys";
import { jobTiming, runGithubJob, seedNodeModules } from "./team-repo-runner";
import {
  ciSandbox,
  createDatabase,
  expectJobOk,
  expectNoChanges,
  expectOwnTestsPass,
  githubContexts,
  scheduleContexts,
  teamRepoWork,
  type CiSandbox,
} from "./team-repo-setup";

jest.setTimeout(20 * 60_000);

const STACK = "account";
const w = teamRepoWork("mgmt-team-repo-tf-");
const { home, sh, ok, withApi } = w;
const repo = w.scaffold("terraform", "--engine", "terraform", "--backend", "pg", "--ci", "github");
const stackDir = (root: string) => join(root, "cdktf.out", "stacks", STACK);

let sandbox: CiSandbox;
/** The account: no fixtures, so what the stack does not manage is exactly what the tests make. */
let server: RunningServer;
let pg: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // The run's one install of the scaffold's packages (OpenTofu's too, unused here), and a lock of this repository's own.
  linkInstalled(w, await installedScaffold(w), repo);
  server = await w.serve("--no-default-fixtures");
  // A database of this file's own on the run's cluster (test/global/run-postgres.ts).
  pg = await createDatabase(await runPostgres(), "state_tf");
  env = withApi(server, { PG_CONN_STR: pg });
  sandbox = await ciSandbox(w);
}, 30 * 60_000);

afterAll(() => w.cleanUp());

const terraform = (dir: string, ...args: string[]) => ok("terraform", [...args, "-no-color"], dir, env);
const emptyPlan = (dir: string) => expectNoChanges(w, "terraform", dir, env);
const contexts = (over: (o: Record<string, unknown>) => Record<string, unknown>) =>
  over({
    vars: { MGMT_URL: server.url },
    secrets: { MGMT_TOKEN: server.token, MGMT_DRIFT_TOKEN: server.token, PG_CONN_STR: pg },
  });

describe("a repository from mgmt init --engine terraform, after npm install", () => {
  it("installs the provider where terraform finds it, and synthesizes", () => {
    ok("npx", ["mgmt", "install-provider"], repo);
    expect(existsSync(join(home, ".terraform.d", "plugins", PROVIDER_SOURCE, PROVIDER_VERSION, "linux_amd64", "terraform-provider-mgmt"))).toBe(true);
    ok("npx", ["cdktf", "synth"], repo);
    const json = JSON.parse(readFileSync(join(stackDir(repo), "cdk.tf.json"), "utf8")) as {
      resource: Record<string, unknown>;
      terraform: { backend: unknown };
    };
    expect(Object.keys(json.resource)).toHaveLength(6);
    expect(json.terraform.backend).toEqual({ pg: { schema_name: STACK } });
  });

  it("plans; two deploys started together (two people, two checkouts) both succeed, one waiting for the other's lock; re-plans clean", async () => {
    expect(ok("npm", ["run", "plan"], repo, env)).toMatch(/Plan: 6 to add, 0 to change, 0 to destroy/);
    const other = join(w.work, "second-checkout");
    cpSync(repo, other, { recursive: true, filter: (from) => !/[/\\](node_modules|cdktf\.out)$/.test(from) });
    symlinkSync(join(repo, "node_modules"), join(other, "node_modules"));
    const deploys = await Promise.all([repo, other].map((dir) => runProcess("npm", ["run", "deploy"], { cwd: dir, env })));
    expect(deploys.map((d) => ({ code: d.code, out: d.code === 0 ? "" : `${d.stdout}${d.stderr}`.slice(-4000) }))).toEqual([
      { code: 0, out: "" },
      { code: 0, out: "" },
    ]);
    const client = new MgmtClient({ url: server.url, token: server.token });
    try {
      expect((await client.getProfile()).timezone).toBe("Europe/Berlin");
      const keys: string[] = [];
      for await (const k of client.listSshKeys()) keys.push(k.label);
      const tags: string[] = [];
      for await (const t of client.listTags()) tags.push(t.label);
      // Each object once: the deploy that waited found the other's objects in the state.
      expect({ keys: keys.length, tags }).toEqual({ keys: new Set(keys).size, tags: [...new Set(tags)] });
      expect(keys).toHaveLength(1);
    } finally {
      await client.close();
    }
    emptyPlan(stackDir(repo));
    emptyPlan(stackDir(other));
  });
  // After the deploy, in the same checkout and a shell without PG_CONN_STR: the tests need neither the
  // account nor the state's database, though the deploy left the stack initialized on Postgres.
  it("passes its own npm test as generated (jest against mgmt serve --ephemeral, terraform test inside it)", () => {
    expectOwnTestsPass(w, repo);
  });
});

describe("its GitHub jobs, run with terraform", () => {
  beforeAll(() => {
    ok("git", ["init", "-q", "-b", "main"], repo);
    ok("git", ["add", "-A"], repo);
    ok("git", ["commit", "-qm", "mgmt init"], repo);
    // node_modules as an earlier run on this lock file would have cached it.
    seedNodeModules(sandbox.cacheDir, repo, join(repo, "node_modules"));
  });

  it("plan.yml comments the pull request's plan", () => {
    ok("git", ["checkout", "-q", "-b", "pr"], repo);
    const main = join(repo, "main.ts");
    writeFileSync(main, readFileSync(main, "utf8").replace('label: "team-platform"', 'label: "team-infra"'));
    ok("git", ["commit", "-qam", "Rename the team tag"], repo);
    ok("git", ["checkout", "-q", "main"], repo);

    const workflow = readFileSync(join(repo, ".github/workflows/plan.yml"), "utf8");
    expect(workflow).toContain("hashicorp/setup-terraform");
    const job = sandbox.inCheckout(repo, "pr", (runner) => runGithubJob(workflow, "plan", runner, contexts(githubContexts)));
    expectJobOk(job);
    expect(job.steps.find((s) => s.name.startsWith("Install the packages"))!.skipped).toBe(true);
    // Checkout to the comment, for docs/benchmarks.md: printed, not asserted.
    process.stdout.write(`plan.yml's plan job (terraform, pg state), node_modules cached: ${jobTiming(job, "Post or update this stack's comment")}\n`);
    const comments = sandbox.api().github.comments;
    expect(comments.map((c) => c.issue)).toEqual([7]);
    expect(comments[0]!.body).toMatch(/^<!-- mgmt-plan-report:account -->\n## Plan: account/);
    expect(comments[0]!.body).toContain("team-infra");
    // mgmt-policy.json at its defaults passes the example, so the comment says so and the gate stays shut.
    expect(comments[0]!.body).toMatch(/\n## Policy\n\n\*\*Passed\.\*\*/);
    expect(job.steps.find((s) => s.name === "Fail on a policy violation")!.skipped).toBe(true);
  });
});

describe("drift imported as code, as the drift job delivers it", () => {
  const made: { type: string; id: string }[] = [];
  const secrets: string[] = [];
  let drift: string;
  let imports: string;

  beforeAll(() => {
    drift = readFileSync(join(repo, ".github/workflows/drift.yml"), "utf8");
  });

  it("drift.yml files the objects made outside the stack, one of each type, as a cdktf module", async () => {
    const client = new MgmtClient({ url: server.url, token: server.token });
    try {
      const key = await client.createSshKey({ label: "ops desk", ssh_key: sshKeyText("ed25519", "ops@example") });
      const token = await client.createToken({ label: "old laptop", scopes: "account:read_only", expiry: "2030-01-01T00:00:00" });
      const app = await client.createOAuthClient({ label: "Legacy CRM", redirect_uri: "https://crm.example.com/callback" });
      const tag = await client.createTag({ label: "cost-center" });
      made.push(
        { type: "mgmt_ssh_key", id: String(key.id) },
        { type: "mgmt_token", id: String(token.id) },
        { type: "mgmt_oauth_client", id: app.id },
        { type: "mgmt_tag", id: tag.label },
      );
      secrets.push(token.token, app.secret!);
    } finally {
      await client.close();
    }

    const job = sandbox.inCheckout(repo, "main", (runner) => runGithubJob(drift, "drift", runner, contexts(scheduleContexts)));
    expectJobOk(job);
    const issues = sandbox.api().github.issues;
    expect(issues.map((i) => [i.title, i.state])).toEqual([["Drift: account", "open"]]);
    const body = issues[0]!.body;
    for (const secret of [...secrets, server.token]) expect(body).not.toContain(secret);
    imports = /```ts\n([\s\S]*?)```\n/.exec(body)![1]!;
    expect(imports).toContain("export function importUnmanaged(scope: Construct): void {");
    for (const label of ["ops desk", "old laptop", "Legacy CRM", "cost-center"]) expect(imports).toContain(`"${label}"`);
    // What the API shows only once is left out, and the module says so.
    expect(imports).toContain("// token: a secret the API shows only when it is created; unset after the import.");
    expect(imports).toContain("// secret: a secret the API shows only when it is created; unset after the import.");
  });

  it("the stack calling importUnmanaged(this): synth, then an apply that imports each object and creates or destroys nothing", () => {
    writeFileSync(join(repo, "imports.ts"), imports);
    const main = join(repo, "main.ts");
    const source = readFileSync(main, "utf8");
    const adopted = source
      .replace('// import { importUnmanaged } from "./imports";', 'import { importUnmanaged } from "./imports";')
      .replace("// importUnmanaged(this);", "importUnmanaged(this);");
    expect(adopted).not.toBe(source);
    writeFileSync(main, adopted);
    // The adopted "old laptop" token expires in 2030, past the default 90 days: adopting it as it is takes a
    // waiver with a reason and a date (docs/guides/policy.md), or the stack's MgmtPolicy Aspect fails the synth.
    const policyFile = join(repo, "mgmt-policy.json");
    const policy = JSON.parse(readFileSync(policyFile, "utf8")) as { waivers: unknown[] };
    policy.waivers.push({ rule: "token-expiry", address: "mgmt_token.token_old_laptop", reason: "adopted as it is; rotate by 2030", expires: "2999-12-31" });
    writeFileSync(policyFile, `${JSON.stringify(policy, null, 2)}\n`);
    ok("git", ["add", "imports.ts", "main.ts", "mgmt-policy.json"], repo);
    ok("git", ["commit", "-qm", "Adopt what drift found"], repo);

    ok("npx", ["cdktf", "synth"], repo, env);
    const dir = stackDir(repo);
    terraform(dir, "init", "-input=false");
    terraform(dir, "plan", "-input=false", "-out=import.tfplan");
    const plan = JSON.parse(terraform(dir, "show", "-json", "import.tfplan")) as {
      resource_changes?: { address: string; change: { actions: string[]; importing?: { id: string } } }[];
    };
    const changes = plan.resource_changes ?? [];
    expect(changes.filter((c) => c.change.actions.join() !== "no-op").map((c) => [c.address, c.change.actions])).toEqual([]);
    expect(
      changes
        .filter((c) => c.change.importing)
        .map((c) => c.change.importing!.id)
        .sort(),
    ).toEqual(made.map((m) => m.id).sort());
    expect(terraform(dir, "apply", "-input=false", "import.tfplan")).toMatch(/Apply complete! Resources: 4 imported, 0 added, 0 changed, 0 destroyed/);
  });

  it("a fresh clone plans no changes, mgmt drift --unmanaged is clean, and the drift job closes its issue", () => {
    const clone = join(w.work, "fresh");
    ok("git", ["clone", "-q", repo, clone], w.work);
    // node_modules as npm ci would leave it from the same lock file.
    symlinkSync(join(repo, "node_modules"), join(clone, "node_modules"));
    expect(existsSync(join(clone, "cdktf.out"))).toBe(false);
    // The README's way (npm run synth, then the engine in the stack's folder): main.ts with its types stripped, not
    // checked again by ts-node, which type-checked this very commit's main.ts and imports.ts in the test above.
    ok("npm", ["run", "synth"], clone, env);
    terraform(stackDir(clone), "init", "-input=false");
    emptyPlan(stackDir(clone));

    const check = sh("npx", ["mgmt", "drift", "--dir", stackDir(clone), "--engine", "terraform", "--unmanaged", "--format", "json"], clone, env);
    expect({ code: check.code }).toEqual({ code: 0 });
    expect(JSON.parse(check.out.slice(check.out.indexOf("{")))).toMatchObject({ summary: { drifted: 0, deleted: 0, unmanaged: 0 }, has_drift: false });

    expectJobOk(sandbox.inCheckout(repo, "main", (runner) => runGithubJob(drift, "drift", runner, contexts(scheduleContexts))));
    expect(sandbox.api().github.issues.map((i) => i.state)).toEqual(["closed"]);
  });

  it("tears down with npm run destroy, and rebuilds in an empty account with no code edit: the imports of gone objects are left out", async () => {
    ok("npm", ["run", "destroy", "--", "--auto-approve"], repo, env);
    const client = new MgmtClient({ url: server.url, token: server.token });
    try {
      const tags: string[] = [];
      for await (const t of client.listTags()) tags.push(t.label);
      expect(tags).toEqual([]);
    } finally {
      await client.close();
    }

    // A new account (a fresh mgmt serve), the same code and state database: plan and deploy create everything.
    const fresh = await w.serve("--no-default-fixtures");
    const freshEnv = withApi(fresh, { PG_CONN_STR: pg });
    // No import blocks: 6 objects of main.ts and the 4 adopted ones, all created (a plan with imports says "N to import").
    expect(ok("npm", ["run", "plan"], repo, freshEnv)).toMatch(/Plan: 10 to add, 0 to change, 0 to destroy/);
    ok("npm", ["run", "deploy"], repo, freshEnv);
    expectNoChanges(w, "terraform", stackDir(repo), freshEnv);
    expect(ok("git", ["status", "--porcelain"], repo)).toBe("");
  });
});
