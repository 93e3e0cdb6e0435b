/** @tier npm */
/**
 * CDK Terrain's own CLI, `cdktn`, on Node 22 (Node's Linux build from the npm registry,
 * src/harness/node-release.ts) driving a repository from `mgmt init --cdk cdktn`: the npm scripts
 * run cdktn synth, diff, deploy (which locks the provider from the package's mirror, no registry
 * asked), a clean diff, output and destroy against `mgmt serve`, on OpenTofu and on Terraform; then
 * the repository's GitHub and GitLab jobs run step by step under that Node 22, as a runner would.
 * One npm install (on the Node 20 of the suite, where cdktn-cli installs with a warning) serves
 * both engines' repositories.
 */
import { readFileSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { MgmtClient } from "../../src/client";
import { availableEngines, type Engine } from "../../src/harness/engine";
import { NODE_22, nodeRelease } from "../../src/harness/node-release";
import type { RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../../src/provider/identity";
import { installedScaffold, linkInstalled } from "../support/scaffold-install";
import { runGithubJob, runGitlabJob, seedNodeModules, type Runner } from "./team-repo-runner";
import {
  ciSandbox,
  expectJobOk,
  expectNoChanges,
  expectStackDeployed,
  githubContexts,
  gitlabMergeRequestEnv,
  scheduleContexts,
  teamRepoWork,
  type CiSandbox,
} from "./team-repo-setup";

jest.setTimeout(20 * 60_000);

const STACK = "account";
const w = teamRepoWork("mgmt-cdktn-cli-");
const { ok } = w;
const engines = availableEngines();
/** One repository per engine: the scaffold differs (scripts, CI, the tofu package), the packages are the same. */
const repos = Object.fromEntries(
  engines.map((e) => [e.name, e.name === "tofu" ? w.scaffold("tofu", "--cdk", "cdktn") : w.scaffold(e.name, "--cdk", "cdktn", "--engine", e.name)]),
) as Record<Engine["name"], string>;
const installed = repos.tofu;
let node22: string;
/** The run's one install of this scaffold's packages (test/support/scaffold-install.ts). */
let shared: string;

/** A person's shell with Node 22 first on PATH (and the API of `server`). */
const onNode22 = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...env, PATH: `${node22}${delimiter}${env.PATH ?? ""}` });
const run = (repo: string, script: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  stripVTControlCharacters(ok("npm", ["run", script, ...(args.length ? ["--", ...args] : [])], repo, env));
const NODE_20_LINE = /cdktn commands need Node 22/;

beforeAll(async () => {
  node22 = nodeRelease();
  // The one npm install of this scaffold in the run, shared with test/e2e/team-repo-cdktn.test.ts.
  shared = await installedScaffold(w, "--cdk", "cdktn");
  for (const repo of Object.values(repos)) linkInstalled(w, shared, repo);
}, 30 * 60_000);

afterAll(() => w.cleanUp());

describe("a repository from mgmt init --cdk cdktn, after npm install", () => {
  it(`has cdktn-cli, and the Node ${NODE_22} that runs it`, () => {
    const cli = JSON.parse(readFileSync(join(installed, "node_modules", "cdktn-cli", "package.json"), "utf8")) as {
      version: string;
      engines: { node: string };
    };
    expect(cli.version).toMatch(/^0\.24\./);
    // Why the scripts and the CI need Node 22: npm installs it on Node 20 only with a warning.
    expect(cli.engines.node).toMatch(/^>=22\./);
    expect(ok("node", ["--version"], installed, onNode22(w.baseEnv)).trim()).toBe(`v${NODE_22}`);
  });

  it("carries, in the bindings' package.json, the provider metadata cdktn's CLI reads (cdktn, then cdktf) and its cdktn peer", () => {
    const bindings = JSON.parse(readFileSync(join(installed, "node_modules", "@mgmt", "cdktn-provider-mgmt", "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    const provider = { name: PROVIDER_SOURCE, version: PROVIDER_VERSION };
    expect(bindings).toMatchObject({ cdktn: { provider }, cdktf: { provider }, peerDependencies: { cdktn: expect.stringMatching(/0\.24/) as unknown } });
  });
});

describe.each(engines)("the cdktn CLI on Node 22, $name", (engine) => {
  const repo = repos[engine.name];
  const stackDir = join(repo, "cdktf.out", "stacks", STACK);
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // Nothing but the bootstrap account: what the destroy leaves is then nothing at all.
    server = await w.serve("--no-default-fixtures");
    env = onNode22(w.withApi(server));
    ok("npx", ["mgmt", "install-provider"], repo, env);
  });

  it("synthesizes with cdktn synth (npm run synth)", () => {
    const out = run(repo, "synth", env);
    expect(out).toContain(`Generated Terraform code for the stacks: ${STACK}`);
    expect(out).not.toMatch(NODE_20_LINE);
    const json = JSON.parse(readFileSync(join(stackDir, "cdk.tf.json"), "utf8")) as { "//": { metadata: { version: string } } };
    expect(json["//"].metadata.version).toMatch(/^0\.24\./);
  });

  it("diffs, locking the provider from the provider package's mirror (no registry asked), then deploys", async () => {
    const diff = run(repo, "plan", env);
    // cdktn's `providers lock -platform=linux_amd64` after the first init, read from the mirror rather than a registry.
    expect(diff).toMatch(new RegExp(`Fetching ${PROVIDER_SOURCE.replace(/\./g, "\\.")} ${PROVIDER_VERSION.replace(/\./g, "\\.")} for linux_amd64`));
    expect(diff).toMatch(/Plan: 6 to add, 0 to change, 0 to destroy/);
    const lock = readFileSync(join(stackDir, ".terraform.lock.hcl"), "utf8");
    expect(lock).toContain(`provider "${PROVIDER_SOURCE}"`);
    expect(lock).toMatch(/"h1:[A-Za-z0-9+/=]+"/);
    expect(run(repo, "deploy", env)).toMatch(/Apply complete! Resources: 6 added, 0 changed, 0 destroyed/);
    await expectStackDeployed(server);
  });

  it("diffs clean after the deploy, and prints the outputs", () => {
    expect(run(repo, "plan", env)).toMatch(/No changes\. Your infrastructure matches the configuration/);
    expectNoChanges(w, engine.name, stackDir, env);
    const out = run(repo, "output", env);
    expect(out).toMatch(/team_tag = team-platform/);
    expect(out).toMatch(/reporting_token = <sensitive>/);
  });

  it("destroys everything it made, leaving nothing in the API", async () => {
    expect(run(repo, "destroy", env, "--auto-approve")).toMatch(/Destroy complete! Resources: 6 destroyed/);
    const client = new MgmtClient({ url: server.url, token: server.token });
    try {
      const left: string[] = [];
      for await (const t of client.listTags()) left.push(`tag ${t.label}`);
      for await (const k of client.listSshKeys()) left.push(`ssh key ${k.label}`);
      for await (const c of client.listOAuthClients()) left.push(`oauth client ${c.label}`);
      for await (const t of client.listTokens()) if (t.label === "reporting") left.push(`token ${t.label}`);
      expect(left).toEqual([]);
    } finally {
      await client.close();
    }
    expect(JSON.parse(readFileSync(join(repo, `terraform.${STACK}.tfstate`), "utf8"))).toMatchObject({ resources: [] });
  });

  it("fails to lock without the scripts' mirror: cdktn asks the registry, which has no such provider", () => {
    rmSync(join(stackDir, ".terraform.lock.hcl"));
    const { TF_CLI_ARGS_providers_lock: _unset, ...plain } = env;
    const r = w.sh("npx", ["cdktn", "diff"], repo, { ...plain, CHECKPOINT_DISABLE: "1", ...(engine.name === "tofu" ? { TERRAFORM_BINARY_NAME: "tofu" } : {}) });
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/Could not retrieve providers for locking/);
  });
});

describe("the repository's CI files, run as a runner runs them on Node 22", () => {
  let sandbox: CiSandbox;
  let server: RunningServer;
  /** The runner with Node 22 first on its PATH, as setup-node and the node:22 image give it. */
  const withNode22 = (runner: Runner): Runner => ({ ...runner, env: onNode22(runner.env) });

  beforeAll(async () => {
    sandbox = await ciSandbox(w);
    server = await w.serve();
    ok("git", ["init", "-q", "-b", "main"], installed);
    ok("git", ["add", "-A"], installed);
    ok("git", ["commit", "-qm", "mgmt init --cdk cdktn"], installed);
    // node_modules as an earlier run on this lock file would have cached it, for both CIs.
    seedNodeModules(sandbox.cacheDir, installed, join(shared, "node_modules"));
  });

  const contexts = (over: (o: Record<string, unknown>) => Record<string, unknown>) =>
    over({ vars: { MGMT_URL: server.url }, secrets: { MGMT_TOKEN: server.token, MGMT_DRIFT_TOKEN: server.token } });

  it("plan.yml synthesizes with cdktn synth on Node 22 and comments the plan", () => {
    const workflow = readFileSync(join(installed, ".github/workflows/plan.yml"), "utf8");
    expect(workflow).toMatch(/node-version: 22\n/);
    const job = sandbox.inCheckout(installed, "main", (runner) => runGithubJob(workflow, "plan", withNode22(runner), contexts(githubContexts)));
    expectJobOk(job);
    expect(job.steps.find((s) => s.name.startsWith("Install the packages"))!.skipped).toBe(true);
    const synth = job.steps.find((s) => s.name === "Synthesize")!.output;
    expect(synth).toContain(`Generated Terraform code for the stacks: ${STACK}`);
    expect(synth).not.toMatch(NODE_20_LINE);
    const comments = sandbox.api().github.comments;
    expect(comments.map((c) => c.issue)).toEqual([7]);
    expect(comments[0]!.body).toMatch(/^<!-- mgmt-plan-report:account -->\n## Plan: account/);
    expect(comments[0]!.body).toMatch(/\n## Policy\n\n\*\*Passed\.\*\*/);
  });

  it("plan.yml's setup-node is held to its word: on the suite's Node 20 the job stops there", () => {
    const workflow = readFileSync(join(installed, ".github/workflows/plan.yml"), "utf8");
    const job = sandbox.inCheckout(installed, "main", (runner) => runGithubJob(workflow, "plan", runner, contexts(githubContexts)));
    expect(job.ok).toBe(false);
    expect(job.steps.find((s) => s.code !== 0 && !s.skipped)!.output).toMatch(/asks for node-version 22; the node on the runner's PATH is 20\./);
  });

  it("drift.yml checks the stack on Node 22 and files what no code manages", () => {
    const workflow = readFileSync(join(installed, ".github/workflows/drift.yml"), "utf8");
    const job = sandbox.inCheckout(installed, "main", (runner) => runGithubJob(workflow, "drift", withNode22(runner), contexts(scheduleContexts)));
    expectJobOk(job);
    // The server's sample data, which the CI's fresh state does not manage: one issue, with cdktn import code.
    const issues = sandbox.api().github.issues;
    expect(issues.map((i) => [i.title, i.state])).toEqual([["Drift: account", "open"]]);
    expect(issues[0]!.body).toContain('from "@mgmt/cdktn-provider-mgmt";');
  });

  it(".gitlab-ci.yml's plan job runs in the node:22 image's Node and posts the plan as a merge-request note", () => {
    const pipeline = readFileSync(join(installed, ".gitlab-ci.yml"), "utf8");
    expect(pipeline).toContain("image: node:22-bookworm");
    const job = sandbox.inCheckout(installed, "main", (runner) => runGitlabJob(pipeline, "plan", withNode22(runner), gitlabMergeRequestEnv(server)))!;
    expect({ ok: job.ok, output: job.ok ? "" : job.steps[0]!.output.slice(-4000) }).toEqual({ ok: true, output: "" });
    expect(job.steps[0]!.output).toContain(`Generated Terraform code for the stacks: ${STACK}`);
    expect(job.steps[0]!.output).not.toMatch(NODE_20_LINE);
    const notes = sandbox.api().gitlab.notes;
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body).toMatch(/^<!-- mgmt-plan-report:account -->\n## Plan: account/);
    expect(notes[0]!.body).toMatch(/\n## Policy\n\n\*\*Passed\.\*\*/);
  });
});
