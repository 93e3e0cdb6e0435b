/** @tier npm */
/**
 * `mgmt init` end to end: a repository scaffolded from this build's tarballs, with the scaffold's
 * one npm install of the run (test/support/scaffold-install.ts, shared by every repository here), then used as a team would: install the provider, synthesize,
 * plan, apply and re-plan against `mgmt serve`, `npm test` as generated, the Postgres backend with
 * its connection string only in the environment, and the CI files run as a runner would run them
 * (tests below "the CI files"): plan comments posted then edited, drift issues filed, updated, closed.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { MgmtClient } from "../../src/client";
import type { PostgresServer } from "../../src/harness/postgres";
import type { RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../../src/provider/identity";
import { runPostgres } from "../global/run-postgres";
import { installedScaffold, linkInstalled } from "../support/scaffold-install";
import { jobTiming, runGithubJob, runGitlabJob, seedCache, type Runner } from "./team-repo-runner";
import {
  ciSandbox,
  createDatabase,
  expectJobOk as expectOk,
  expectNoChanges,
  expectOwnTestsPass,
  expectStackDeployed,
  githubContexts,
  scheduleContexts,
  teamRepoWork,
  type CiSandbox,
} from "./team-repo-setup";

jest.setTimeout(20 * 60_000);

const STACK = "account";
const w = teamRepoWork("mgmt-team-repo-");
const { home, sh, ok, withApi, serve } = w;
// Both repositories are named infra, so their package.json and lock are the same.
const local = w.scaffold("local");
/** The shared install of the scaffold's packages (a folder with package-lock.json and node_modules). */
let installed: string;

beforeAll(async () => {
  // The run's one npm install of the scaffold (better-sqlite3's addon from test/support/addon-prebuild.ts); every repository links it.
  installed = await installedScaffold(w);
  linkInstalled(w, installed, local);
}, 30 * 60_000);

afterAll(() => w.cleanUp());

describe("a repository from mgmt init, after npm install", () => {
  const stackDir = join(local, "cdktf.out", "stacks", STACK);

  it("installs the provider with npx mgmt install-provider, where both engines find it", () => {
    ok("npx", ["mgmt", "install-provider"], local);
    expect(existsSync(join(home, ".terraform.d", "plugins", PROVIDER_SOURCE, PROVIDER_VERSION, "linux_amd64", "terraform-provider-mgmt"))).toBe(true);
  });

  it("synthesizes with npx cdktf synth and npm run synth, quietly offline, leaving a committed tree unchanged", () => {
    ok("git", ["init", "-q", "-b", "main"], local);
    ok("git", ["add", "-A"], local);
    ok("git", ["commit", "-qm", "mgmt init"], local);
    // A person's shell without CHECKPOINT_DISABLE: cdktf's CLI would write a projectId into cdktf.json, had init not.
    const { CHECKPOINT_DISABLE: _, ...unset } = w.baseEnv;
    ok("npx", ["cdktf", "synth"], local, unset);
    expect(ok("npm", ["run", "synth"], local, unset)).not.toMatch(/checkpoint-api|ENOTFOUND/i);
    expect(ok("git", ["status", "--porcelain"], local)).toBe("");
    const json = JSON.parse(readFileSync(join(stackDir, "cdk.tf.json"), "utf8")) as { resource: Record<string, unknown> };
    expect(Object.keys(json.resource).sort()).toEqual([
      "mgmt_account_contact",
      "mgmt_oauth_client",
      "mgmt_profile_settings",
      "mgmt_ssh_key",
      "mgmt_tag",
      "mgmt_token",
    ]);
  });

  it("plans, applies, re-plans with no changes, shows outputs and destroys against mgmt serve, all with OpenTofu", async () => {
    const server = await serve();
    const env = withApi(server);
    expect(ok("npm", ["run", "plan"], local, env)).toMatch(/Plan: 6 to add, 0 to change, 0 to destroy/);
    ok("npm", ["run", "deploy"], local, env);
    await expectStackDeployed(server);
    expectNoChanges(w, "tofu", stackDir, env);
    const stateFile = join(local, `terraform.${STACK}.tfstate`);
    expect(readFileSync(stateFile, "utf8")).toContain("mgmt_tag");
    expect(ok("npm", ["run", "output"], local, env)).toMatch(/team_tag\s*=\s*"?team-platform/);
    ok("npm", ["run", "destroy", "--", "--auto-approve"], local, env);
    // The engine that wrote the state last is OpenTofu (1.6), not the terraform on PATH (1.11).
    const state = JSON.parse(readFileSync(stateFile, "utf8")) as { terraform_version: string; resources: unknown[] };
    expect({ version: state.terraform_version, resources: state.resources }).toEqual({ version: expect.stringMatching(/^1\.6\./), resources: [] });
    expect(ok("git", ["status", "--porcelain"], local)).toBe("");
  });

  // The example replaced, as a team does on day one: other resource types, no outputs, and npm test as generated.
  it("passes its own npm test, unchanged, for a stack of the team's own instead of the example", () => {
    const main = join(local, "main.ts");
    const example = readFileSync(main, "utf8");
    const start = example.indexOf("    // Your own public key");
    const end = example.indexOf("    // Last: import blocks");
    writeFileSync(
      main,
      `${example.slice(0, start)}    new oauthClient.OauthClient(this, "billing", { label: "Billing portal", redirectUri: "https://billing.example.org/callback" });
    new profileSettings.ProfileSettings(this, "settings", { timezone: "UTC" });

${example.slice(end)}`,
    );
    try {
      expectOwnTestsPass(w, local, "own");
    } finally {
      writeFileSync(main, example);
    }
  });
});

/** A second repository sharing the first one's node_modules (the same packages, so the same lock). */
function sibling(parent: string, ...flags: string[]): string {
  const dir = w.scaffold(parent, ...flags);
  linkInstalled(w, installed, dir);
  return dir;
}

describe("with --backend pg", () => {
  /** The run's cluster (test/global/run-postgres.ts): this file's databases are its own. */
  let cluster: PostgresServer;
  let pgRepo: string;
  beforeAll(async () => {
    cluster = await runPostgres();
    pgRepo = sibling("pg", "--backend", "pg", "--ci", "github,gitlab");
  });

  it("keeps the connection string out of cdk.tf.json, and the state in Postgres", async () => {
    const url = `${await createDatabase(cluster, "state_pg")}&application_name=s3cret-marker`;
    const server = await serve();
    const env = withApi(server, { PG_CONN_STR: url });
    // The scripts' synth (what CI and deploy run), types stripped: `npx cdktf synth` is the test above's, and this
    // main.ts's type check (PgBackend and all) is the plan job's Type-check step, run in every plan.yml test below.
    ok("npm", ["run", "synth"], pgRepo, env);
    const synthesized = readFileSync(join(pgRepo, "cdktf.out", "stacks", STACK, "cdk.tf.json"), "utf8");
    expect(synthesized).not.toContain("s3cret-marker");
    expect(synthesized).not.toContain(String(cluster.port));
    expect((JSON.parse(synthesized) as { terraform: { backend: unknown } }).terraform.backend).toEqual({ pg: { schema_name: STACK } });

    ok("npm", ["run", "deploy"], pgRepo, env);
    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query<{ data: string }>(`SELECT data FROM ${STACK}.states`);
      expect(rows.map((r) => r.data).join("")).toContain("team-platform");
    } finally {
      await db.end();
    }
    expectNoChanges(w, "tofu", join(pgRepo, "cdktf.out", "stacks", STACK), env);
  });

  describe("the CI files, run as a runner runs them", () => {
    let sandbox: CiSandbox;
    let origin: string;
    /** Server A: the default fixtures (objects no code manages) and the stack deployed, state in database a. */
    let a: { server: RunningServer; pg: string };
    /** Server B: nothing but the bootstrap account and the stack deployed, state in database b. */
    let b: { server: RunningServer; pg: string };

    const api = () => sandbox.api();
    const inCheckout = <T>(branch: string, run: (runner: Runner) => T): T => sandbox.inCheckout(origin, branch, run);

    beforeAll(async () => {
      sandbox = await ciSandbox(w);

      // The team's repository: the pg scaffold, committed on main with its lock file.
      origin = pgRepo;
      ok("git", ["init", "-q", "-b", "main"], origin);
      ok("git", ["add", "-A"], origin);
      ok("git", ["commit", "-qm", "mgmt init"], origin);

      const deployed = async (db: string, ...serveArgs: string[]) => {
        const server = await serve(...serveArgs);
        const pg = await createDatabase(cluster, db);
        ok("npm", ["run", "deploy"], origin, withApi(server, { PG_CONN_STR: pg }));
        return { server, pg };
      };
      a = await deployed("state_a");
      b = await deployed("state_b", "--no-default-fixtures");
    }, 15 * 60_000);

    const contexts = (target: { server: RunningServer; pg: string }) =>
      githubContexts({
        vars: { MGMT_URL: target.server.url },
        secrets: { MGMT_TOKEN: target.server.token, MGMT_DRIFT_TOKEN: target.server.token, PG_CONN_STR: target.pg },
      });

    /** A pull request's commit: main.ts with `from` replaced by `to` (each pair in turn), on branch pr. */
    function commitToPr(from: string, to: string, message: string, ...more: [string, string][]): void {
      const exists = sh("git", ["rev-parse", "--verify", "-q", "pr"], origin).code === 0;
      ok("git", exists ? ["checkout", "-q", "pr"] : ["checkout", "-q", "-b", "pr"], origin);
      const main = join(origin, "main.ts");
      const edited = [[from, to], ...more].reduce(
        (text, [f, t]) => {
          expect(text).toContain(f);
          return text.replace(f!, t!);
        },
        readFileSync(main, "utf8"),
      );
      writeFileSync(main, edited);
      ok("git", ["commit", "-qam", message], origin);
      ok("git", ["checkout", "-q", "main"], origin);
    }

    it("plan.yml comments the plan on the pull request, then edits that comment on the next push", () => {
      const workflow = readFileSync(join(origin, ".github/workflows/plan.yml"), "utf8");
      commitToPr('label: "team-platform"', 'label: "team-infra"', "Rename the team tag");
      const first = inCheckout("pr", (runner) => runGithubJob(workflow, "plan", runner, contexts(a)));
      expectOk(first);
      // plan -json writes the engine's log to a file; show prints the plan itself into the job's log.
      expect(first.steps.find((s) => s.name === "Plan")!.output).toMatch(/# mgmt_tag\.team (will be updated in-place|must be replaced)/);
      // A cold cache: npm ci ran, and the post step saved node_modules for the next run.
      expect(first.steps.find((s) => s.name.startsWith("Install the packages"))!.skipped).toBe(false);
      let comments = api().github.comments;
      expect(comments).toHaveLength(1);
      expect(comments[0]!.issue).toBe(7);
      expect(comments[0]!.body).toMatch(/^<!-- mgmt-plan-report:account -->\n## Plan: account/);
      expect(comments[0]!.body).toContain("team-infra");
      // The example keeps the account's rules: the Policy section passes, and so does its step.
      expect(comments[0]!.body).toMatch(/\n## Policy\n\n\*\*Passed\.\*\* \d+ resource\(s\) checked/);
      expect(first.steps.find((s) => s.name === "Fail on a policy violation")!.skipped).toBe(true);

      commitToPr('timezone: "Europe/Berlin"', 'timezone: "UTC"', "Profile in UTC");
      const second = inCheckout("pr", (runner) => runGithubJob(workflow, "plan", runner, contexts(a)));
      expectOk(second);
      expect(second.steps.find((s) => s.name.startsWith("Install the packages"))!.skipped).toBe(true);
      // The job with node_modules cached, checkout to the comment, for docs/benchmarks.md: printed, not asserted.
      process.stdout.write(`plan.yml's plan job (tofu, pg state), node_modules cached: ${jobTiming(second, "Post or update this stack's comment")}\n`);
      comments = api().github.comments;
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body).toContain("timezone");
      const patches = api().calls.filter((c) => c.tool === "gh" && c.argv.includes("PATCH"));
      expect(patches).toHaveLength(1);

      // A token whose lifetime is a variable: the Aspect cannot tell it at synth (it notes so), the plan knows 8760h.
      commitToPr("TerraformStack } from", "TerraformStack, TerraformVariable } from", "A CI token for a year", [
        "    // importUnmanaged(this);",
        `    const lifetime = new TerraformVariable(this, "ci_lifetime", { type: "string", default: "8760h" });
    new token.Token(this, "ci", { label: "ci", scopes: "account:read_only", expiresIn: lifetime.stringValue, renewBefore: "720h" });
    // importUnmanaged(this);`,
      ]);
      const violating = inCheckout("pr", (runner) => runGithubJob(workflow, "plan", runner, contexts(a)));
      expect(violating.ok).toBe(false);
      // Everything ran, the comment was posted, then the last step failed the job on the check's exit code.
      expect(violating.steps.filter((s) => !s.skipped && s.code !== 0).map((s) => [s.name, s.code])).toEqual([["Fail on a policy violation", 2]]);
      expect(violating.steps.find((s) => s.name === "Say so in the comment when the plan failed")!.skipped).toBe(true);
      expect(violating.steps.find((s) => s.name === "Upload the policy findings")!.code).toBe(0);
      comments = api().github.comments;
      expect(comments).toHaveLength(1);
      const policy = comments[0]!.body.slice(comments[0]!.body.indexOf("\n## Policy\n"));
      expect(policy).toMatch(/^\n## Policy\n\n\*\*1 violation at error severity\*\*/);
      expect(policy).toMatch(/- `mgmt_token\.ci` \*\*token-expiry\*\*: `expires_in` .*8760h/);

      // The pull request fixed again (the GitLab test below plans this branch): the same job passes.
      ok("git", ["branch", "-f", "pr", "pr~1"], origin);

      // A violation the Aspect finds at synth: the synth stops, and still the comment's Policy section names it.
      commitToPr(
        "    // importUnmanaged(this);",
        `    new token.Token(this, "ci", { label: "ci", scopes: "account:read_only", expiresIn: "8760h", renewBefore: "720h" });
    // importUnmanaged(this);`,
        "A CI token for a year, said at synth",
      );
      const stopped = inCheckout("pr", (runner) => runGithubJob(workflow, "plan", runner, contexts(a)));
      expect(stopped.ok).toBe(false);
      // Posted first, failed last: the only failing step is the gate, and no plan ran.
      expect(stopped.steps.filter((s) => !s.skipped && s.code !== 0).map((s) => [s.name, s.code])).toEqual([["Fail on the synth's policy findings", 2]]);
      expect(stopped.steps.find((s) => s.name === "Plan")!.skipped).toBe(true);
      const synthLog = stopped.steps.find((s) => s.name === "Synthesize")!.output;
      expect(synthLog).toMatch(/account\/ci.*\[mgmt policy token-expiry\]/);
      expect(synthLog).not.toMatch(/^\s+at /m);
      comments = api().github.comments;
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body).toMatch(
        /^<!-- mgmt-plan-report:account -->\n## Plan: account\n\n:x: \*\*The synth stopped on the account's rules: no plan was made\.\*\*/,
      );
      expect(comments[0]!.body).toMatch(/\n## Policy\n\n\*\*1 violation at error severity\*\*/);
      expect(comments[0]!.body).toMatch(/- `mgmt_token\.ci \(construct account\/ci\)` \*\*token-expiry\*\*: `expires_in` .*8760h/);
      ok("git", ["branch", "-f", "pr", "pr~1"], origin);
    });

    it("drift.yml files one issue while drift lasts, updates it, and closes it when there is none", async () => {
      const workflow = readFileSync(join(origin, ".github/workflows/drift.yml"), "utf8");
      const schedule = (target: { server: RunningServer; pg: string }) =>
        scheduleContexts({
          vars: { MGMT_URL: target.server.url },
          secrets: { MGMT_TOKEN: target.server.token, MGMT_DRIFT_TOKEN: target.server.token, PG_CONN_STR: target.pg },
        });
      const issueCalls = () => api().calls.filter((c) => c.tool === "gh" && c.argv[0] === "issue" && c.argv[1] !== "list");

      // B: everything live is managed and as the code says: nothing to file.
      const calm = inCheckout("main", (runner) => runGithubJob(workflow, "drift", runner, schedule(b)));
      expectOk(calm);
      expect(issueCalls()).toEqual([]);
      expect(api().github.issues).toEqual([]);

      // A: the fixtures' objects are unmanaged: one issue, with them as cdktf code to keep in the stack.
      const drifted = inCheckout("main", (runner) => runGithubJob(workflow, "drift", runner, schedule(a)));
      expectOk(drifted);
      let issues = api().github.issues;
      expect(issues.map((i) => [i.title, i.state, i.labels])).toEqual([["Drift: account", "open", ["drift"]]]);
      expect(issues[0]!.body).toContain("build runner");
      expect(issues[0]!.body).toMatch(/export function importUnmanaged\(scope: Construct\)[\s\S]*\.importFrom\(/);

      // An object of the stack deleted outside: the same issue, updated.
      const client = new MgmtClient({ url: a.server.url, token: a.server.token });
      try {
        for await (const key of client.listSshKeys()) if (key.label === "laptop") await client.deleteSshKey(key.id);
      } finally {
        await client.close();
      }
      expectOk(inCheckout("main", (runner) => runGithubJob(workflow, "drift", runner, schedule(a))));
      issues = api().github.issues;
      expect(issues).toHaveLength(1);
      expect(issues[0]!.body).toContain("mgmt_ssh_key.laptop");
      expect(issueCalls().map((c) => c.argv.slice(0, 2).join(" "))).toEqual(["issue create", "issue edit"]);

      // B again: no drift, so the open issue is closed and nothing new is filed.
      expectOk(inCheckout("main", (runner) => runGithubJob(workflow, "drift", runner, schedule(b))));
      expect(api().github.issues.map((i) => i.state)).toEqual(["closed"]);
      expect(issueCalls().map((c) => c.argv.slice(0, 2).join(" "))).toEqual(["issue create", "issue edit", "issue close"]);
    });

    it(".gitlab-ci.yml: plan keeps one merge-request note, drift files an issue, each only in its pipeline", () => {
      const pipeline = readFileSync(join(origin, ".gitlab-ci.yml"), "utf8");
      // node_modules as an earlier pipeline on this lock file cached it (a cold npm ci is plan.yml's test above).
      const lock = createHash("sha256")
        .update(readFileSync(join(origin, "package-lock.json")))
        .digest("hex");
      seedCache(sandbox.cacheDir, `gitlab-${lock}-node_modules/`, join(installed, "node_modules"));
      const ci = (target: { server: RunningServer; pg: string }, source: string): NodeJS.ProcessEnv => ({
        CI_PIPELINE_SOURCE: source,
        CI_API_V4_URL: "https://gitlab.example.test/api/v4",
        CI_PROJECT_ID: "42",
        CI_MERGE_REQUEST_IID: "3",
        CI_PIPELINE_URL: "https://gitlab.example.test/team/infra/-/pipelines/9",
        GITLAB_API_TOKEN: "glpat-not-a-real-token",
        MGMT_URL: target.server.url,
        MGMT_TOKEN: target.server.token,
        MGMT_DRIFT_TOKEN: target.server.token,
        PG_CONN_STR: target.pg,
      });
      const first = inCheckout("pr", (runner) => {
        expect(runGitlabJob(pipeline, "drift", runner, ci(a, "merge_request_event"))).toBeUndefined();
        return runGitlabJob(pipeline, "plan", runner, ci(a, "merge_request_event"))!;
      });
      expectOk(first);
      let notes = api().gitlab.notes;
      expect(notes).toHaveLength(1);
      expect(notes[0]!.body).toMatch(/^<!-- mgmt-plan-report:account -->\n## Plan: account/);

      // A plan that fails (a token the API refuses) fails the job and says so in the same note, as GitHub's job does.
      const failed = inCheckout("pr", (runner) => runGitlabJob(pipeline, "plan", runner, { ...ci(a, "merge_request_event"), MGMT_TOKEN: "not-a-token" })!);
      expect(failed.ok).toBe(false);
      expect(failed.steps.map((s) => [s.name, s.code === 0])).toEqual([
        ["plan", false],
        ["plan after_script", true],
      ]);
      notes = api().gitlab.notes;
      expect(notes).toHaveLength(1);
      expect(notes[0]!.body).toMatch(/^<!-- mgmt-plan-report:account -->\n## Plan: account\n\n:x: \*\*The plan failed\.\*\*/);
      expect(api().calls.filter((c) => c.tool === "curl" && c.argv.includes("PUT"))).toHaveLength(1);

      // Drift acts with MGMT_DRIFT_TOKEN, whatever MGMT_TOKEN holds.
      const drift = inCheckout("main", (runner) => {
        expect(runGitlabJob(pipeline, "plan", runner, ci(a, "schedule"))).toBeUndefined();
        return runGitlabJob(pipeline, "drift", runner, { ...ci(a, "schedule"), MGMT_TOKEN: "the-plan-jobs-token" })!;
      });
      expectOk(drift);
      const issues = api().gitlab.issues;
      expect(issues.map((i) => [i.title, i.state, i.labels])).toEqual([["Drift: account", "open", ["drift"]]]);
      expect(issues[0]!.body).toContain("mgmt_ssh_key.laptop");
    });
  });
});
