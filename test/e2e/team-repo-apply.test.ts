/** @tier npm */
/**
 * The loop closed in CI: a repository from `mgmt init --backend pg --ci github,gitlab`, its apply jobs run as a
 * runner runs them (test/e2e/team-repo-runner.ts) against `mgmt serve` with the state in Postgres. A pull
 * request's plan, its merge applying exactly that (objects created, state written, the result posted), a
 * scheduled run rotating a token that is due (the new token made before the old is revoked), a merge whose plan
 * moved since review (an out-of-band change in between) applying nothing and saying so, and a scheduled run
 * with a change that is not a rotation applying nothing. GitHub's apply.yml, then GitLab's apply and rotate jobs.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { MgmtClient } from "../../src/client";
import type { RunningServer } from "../../src/harness/serve";
import { runPostgres } from "../global/run-postgres";
import { installedScaffold, linkInstalled } from "../support/scaffold-install";
import { runGithubJob, runGitlabJob, seedCache, type JobResult, type Runner } from "./team-repo-runner";
import { ciSandbox, createDatabase, expectJobOk, githubContexts, pushContexts, scheduleContexts, teamRepoWork, type CiSandbox } from "./team-repo-setup";

jest.setTimeout(20 * 60_000);

const STACK = "account";
const w = teamRepoWork("mgmt-team-repo-apply-");
const { ok } = w;
const repo = w.scaffold("apply", "--backend", "pg", "--ci", "github,gitlab");
/** A token due for renewal one second after it is made (the provider plans on its own clock). */
const DUE_TOKEN = `    new token.Token(this, "ci", { label: "ci", scopes: "account:read_only", expiresIn: "1h", renewBefore: "59m59s" });
    // importUnmanaged(this);`;

let sandbox: CiSandbox;
let installed: string;

beforeAll(async () => {
  installed = await installedScaffold(w);
  linkInstalled(w, installed, repo);
  ok("git", ["init", "-q", "-b", "main"], repo);
  ok("git", ["add", "-A"], repo);
  ok("git", ["commit", "-qm", "mgmt init"], repo);
  sandbox = await ciSandbox(w);
  const lock = createHash("sha256")
    .update(readFileSync(join(repo, "package-lock.json")))
    .digest("hex");
  // node_modules as an earlier run on this lock file cached it (a cold npm ci is team-repo.test.ts's).
  seedCache(sandbox.cacheDir, `node-modules-Linux-${lock}`, join(installed, "node_modules"));
  seedCache(sandbox.cacheDir, `gitlab-${lock}-node_modules/`, join(installed, "node_modules"));
}, 30 * 60_000);

afterAll(() => w.cleanUp());

/** A commit on branch `branch` (made from main) with main.ts's `from` replaced by `to`; its sha. */
function commitOn(branch: string, message: string, ...edits: [string, string][]): string {
  ok("git", ["checkout", "-q", "-B", branch, "main"], repo);
  const main = join(repo, "main.ts");
  writeFileSync(
    main,
    edits.reduce(
      (text, [from, to]) => {
        expect(text).toContain(from);
        return text.replace(from, to);
      },
      readFileSync(main, "utf8"),
    ),
  );
  ok("git", ["commit", "-qam", message], repo);
  const sha = ok("git", ["rev-parse", "HEAD"], repo).trim();
  ok("git", ["checkout", "-q", "main"], repo);
  return sha;
}

/** The pull request merged (fast-forward): main is at its commit, which the host knows came from `number`. */
function merge(branch: string, number: number, host: "github" | "gitlab"): string {
  ok("git", ["merge", "-q", "--ff-only", branch], repo);
  const sha = ok("git", ["rev-parse", "HEAD"], repo).trim();
  sandbox.merged(sha, number, host);
  return sha;
}

/** What the account answers a token with: 200, or the error's status. */
async function status(server: RunningServer, token: string): Promise<number> {
  const c = new MgmtClient({ url: server.url, token, retry: { maxRetries: 0 } });
  try {
    await c.getProfile();
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  } finally {
    await c.close();
  }
}

/** The state's resources as the apply wrote it in Postgres: address to attributes. */
async function stateOf(pg: string): Promise<Record<string, Record<string, unknown>>> {
  const db = new Client({ connectionString: pg });
  await db.connect();
  try {
    const { rows } = await db.query<{ data: string }>(`SELECT data FROM ${STACK}.states`);
    const state = JSON.parse(rows[0]!.data) as { resources: { type: string; name: string; instances: { attributes: Record<string, unknown> }[] }[] };
    return Object.fromEntries(state.resources.map((r) => [`${r.type}.${r.name}`, r.instances[0]!.attributes]));
  } finally {
    await db.end();
  }
}

async function account(server: RunningServer): Promise<{ tags: string[]; keys: string[]; timezone: string; tokens: { id: string; label: string }[] }> {
  const c = new MgmtClient({ url: server.url, token: server.token });
  try {
    const tags: string[] = [];
    for await (const t of c.listTags()) tags.push(t.label);
    const keys: string[] = [];
    for await (const k of c.listSshKeys()) keys.push(k.label);
    const tokens: { id: string; label: string }[] = [];
    for await (const t of c.listTokens()) tokens.push({ id: String(t.id), label: t.label });
    return { tags, keys, timezone: (await c.getProfile()).timezone, tokens };
  } finally {
    await c.close();
  }
}

/** The ids of the token events, in the order the account recorded them. */
async function tokenEvents(server: RunningServer): Promise<{ action: string; id: number | undefined }[]> {
  const c = new MgmtClient({ url: server.url, token: server.token });
  try {
    const events: { at: number; action: string; id: number | undefined }[] = [];
    for await (const e of c.listEvents())
      if (e.action.startsWith("token_")) events.push({ at: e.id, action: e.action, id: e.entity?.id as number | undefined });
    return events.sort((a, b) => a.at - b.at).map(({ action, id }) => ({ action, id }));
  } finally {
    await c.close();
  }
}

async function deleteSshKey(server: RunningServer, label: string): Promise<void> {
  const c = new MgmtClient({ url: server.url, token: server.token });
  try {
    for await (const k of c.listSshKeys()) if (k.label === label) await c.deleteSshKey(k.id);
  } finally {
    await c.close();
  }
}

/** Nothing secret of the account reached the job's log: its tokens' values and the state's connection string. */
function expectNoSecretIn(job: JobResult, secrets: string[]): void {
  const log = job.steps.map((s) => s.output).join("\n");
  for (const secret of secrets) expect(log).not.toContain(secret);
}

const step = (job: JobResult, name: string) => job.steps.find((s) => s.name === name)!;

describe("GitHub: apply.yml", () => {
  let server: RunningServer;
  let pg: string;
  const inCheckout = <T>(branch: string, run: (runner: Runner) => T): T => sandbox.inCheckout(repo, branch, run);
  const settings = () => ({
    vars: { MGMT_URL: server.url },
    secrets: { MGMT_TOKEN: server.token, MGMT_APPLY_TOKEN: server.token, MGMT_DRIFT_TOKEN: server.token, PG_CONN_STR: pg },
  });
  const plan = (pr: number) => {
    const c = githubContexts(settings());
    return { ...c, github: { ...(c.github as Record<string, unknown>), event: { pull_request: { number: pr } } } };
  };
  let applyYml: string;
  let planYml: string;

  beforeAll(async () => {
    server = await w.serve("--no-default-fixtures");
    pg = await createDatabase(await runPostgres(), "state_apply_github");
    applyYml = readFileSync(join(repo, ".github/workflows/apply.yml"), "utf8");
    planYml = readFileSync(join(repo, ".github/workflows/plan.yml"), "utf8");
  });

  it("a merge applies the plan its pull request's comment showed: objects created, state written, the result posted", async () => {
    commitOn("pr-7", "Rename the team tag; a CI token", ['label: "team-platform"', 'label: "team-infra"'], ["    // importUnmanaged(this);", DUE_TOKEN]);
    expectJobOk(inCheckout("pr-7", (runner) => runGithubJob(planYml, "plan", runner, plan(7))));
    const comment = sandbox.api().github.comments.find((c) => c.issue === 7)!;
    expect(comment.body).toMatch(/\n<!-- mgmt-plan-summary:[A-Za-z0-9+/=]+ -->\n$/);

    const sha = merge("pr-7", 7, "github");
    const job = inCheckout("main", (runner) => runGithubJob(applyYml, "apply", runner, pushContexts(settings(), sha)));
    expectJobOk(job);
    expect(step(job, "Apply the saved plan").output).toMatch(/Apply complete! Resources: 7 added, 0 changed, 0 destroyed/);
    const live = await account(server);
    expect(live).toMatchObject({ tags: ["team-infra"], keys: ["laptop"], timezone: "Europe/Berlin" });
    const state = await stateOf(pg);
    expect(Object.keys(state)).toEqual(expect.arrayContaining(["mgmt_tag.team", "mgmt_token.ci", "mgmt_ssh_key.laptop"]));
    const result = sandbox.api().github.comments.filter((c) => c.issue === 7 && c.body.startsWith("<!-- mgmt-apply-report:account -->"));
    expect(result).toHaveLength(1);
    expect(result[0]!.body).toMatch(
      /^<!-- mgmt-apply-report:account -->\n## Apply: account\n\n:white_check_mark: \*\*Applied: the plan below, as review saw it\*\*/,
    );
    expect(step(job, "Fail when the merge was not applied").skipped).toBe(true);
    expectNoSecretIn(job, [String(state["mgmt_token.ci"]!.token), String(state["mgmt_token.reporting"]!.token), pg]);
  });

  it("a scheduled run rotates the token that is due: the new one exists before the old is revoked", async () => {
    const before = await stateOf(pg);
    const old = String(before["mgmt_token.ci"]!.token);
    const oldId = Number(before["mgmt_token.ci"]!.id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await status(server, old)).toBe(200);

    const job = inCheckout("main", (runner) => runGithubJob(applyYml, "apply", runner, scheduleContexts(settings())));
    expectJobOk(job);
    expect(step(job, "Find what review saw").skipped).toBe(true);
    // The reason, in the result the job summary shows.
    expect(step(job, "Post the result").output).toMatch(/Applied: the token rotations below, due under renew_before/);
    expect(step(job, "Post the result").output).toMatch(/rotating `mgmt_token\.ci`: expires \d{4}-\d{2}-\d{2}, inside renew\\?_before 59m59s/i);
    expect(step(job, "Apply the saved plan").output).toMatch(/Apply complete! Resources: 0 added, 1 changed, 0 destroyed/);
    const after = await stateOf(pg);
    const fresh = String(after["mgmt_token.ci"]!.token);
    const freshId = Number(after["mgmt_token.ci"]!.id);
    expect(freshId).not.toBe(oldId);
    expect(await status(server, old)).toBe(401);
    expect(await status(server, fresh)).toBe(200);
    // The account's own record: the new token was made before the old one was revoked.
    const events = (await tokenEvents(server)).filter((e) => e.id === oldId || e.id === freshId);
    expect(events.slice(-2)).toEqual([
      { action: "token_create", id: freshId },
      { action: "token_delete", id: oldId },
    ]);
    expect(readFileSync(join(repo, ".github/workflows/apply.yml"), "utf8")).toContain("cancel-in-progress: false");
    expectNoSecretIn(job, [old, fresh, pg]);
  });

  it("a merge whose plan changed since review (an out-of-band change in between) applies nothing, says so and fails", async () => {
    commitOn("pr-8", "Profile in UTC", ['timezone: "Europe/Berlin"', 'timezone: "UTC"']);
    expectJobOk(inCheckout("pr-8", (runner) => runGithubJob(planYml, "plan", runner, plan(8))));
    // Between review and merge: someone deletes the stack's key through the API.
    await deleteSshKey(server, "laptop");
    const stateBefore = await stateOf(pg);

    const sha = merge("pr-8", 8, "github");
    const job = inCheckout("main", (runner) => runGithubJob(applyYml, "apply", runner, pushContexts(settings(), sha)));
    expect(job.ok).toBe(false);
    expect(job.steps.filter((s) => !s.skipped && s.code !== 0).map((s) => [s.name, s.code])).toEqual([["Fail when the merge was not applied", 3]]);
    expect(step(job, "Apply the saved plan").skipped).toBe(true);
    expect(await account(server)).toMatchObject({ keys: [], timezone: "Europe/Berlin" });
    expect(Object.keys(await stateOf(pg))).toEqual(Object.keys(stateBefore));
    const result = sandbox.api().github.comments.filter((c) => c.issue === 8 && c.body.startsWith("<!-- mgmt-apply-report:account -->"));
    expect(result).toHaveLength(1);
    expect(result[0]!.body).toContain(":x: **Nothing applied: the plan made now is not the one review saw**");
    expect(result[0]!.body).toMatch(/`mgmt_ssh_key\.laptop`: not in the reviewed plan, now create/);
  });

  it("a scheduled run whose plan holds more than rotations applies nothing", async () => {
    const tokensBefore = (await account(server)).tokens;
    const job = inCheckout("main", (runner) => runGithubJob(applyYml, "apply", runner, scheduleContexts(settings())));
    expectJobOk(job);
    expect(step(job, "Apply the saved plan").skipped).toBe(true);
    expect(step(job, "Compare with what review saw").output).toMatch(/the plan does more than rotate tokens:\n.*mgmt_ssh_key\.laptop/);
    // Nothing changed: the key is still gone, the time zone the old one, the due token not rotated either.
    expect(await account(server)).toMatchObject({ keys: [], timezone: "Europe/Berlin", tokens: tokensBefore });
  });
});

describe("GitLab: the apply and rotate jobs", () => {
  let server: RunningServer;
  let pg: string;
  let pipeline: string;
  const ci = (source: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    CI_PIPELINE_SOURCE: source,
    CI_DEFAULT_BRANCH: "main",
    CI_API_V4_URL: "https://gitlab.example.test/api/v4",
    CI_PROJECT_ID: "42",
    CI_JOB_URL: "https://gitlab.example.test/team/infra/-/jobs/11",
    CI_PIPELINE_URL: "https://gitlab.example.test/team/infra/-/pipelines/9",
    GITLAB_API_TOKEN: "glpat-not-a-real-token",
    MGMT_URL: server.url,
    MGMT_TOKEN: server.token,
    MGMT_APPLY_TOKEN: server.token,
    MGMT_DRIFT_TOKEN: server.token,
    PG_CONN_STR: pg,
    ...extra,
  });
  const run = (branch: string, job: string, env: NodeJS.ProcessEnv) => sandbox.inCheckout(repo, branch, (runner) => runGitlabJob(pipeline, job, runner, env));

  beforeAll(async () => {
    // A new account and state: main as the GitHub tests left it, not yet applied here.
    server = await w.serve("--no-default-fixtures");
    pg = await createDatabase(await runPostgres(), "state_apply_gitlab");
    pipeline = readFileSync(join(repo, ".gitlab-ci.yml"), "utf8");
  });

  it("a merge applies what the merge request's note showed; rotate then rotates the due token; a moved plan applies nothing", async () => {
    commitOn("mr-3", "A second key", [
      "    // importUnmanaged(this);",
      `    new sshKey.SshKey(this, "desk", { label: "desk", sshKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP8Evedj3XFY17sjYOwW2JqZV8Ybt0/vZE7MnZWk8fjf desk@example" });\n    // importUnmanaged(this);`,
    ]);
    // A merge request's pipeline: plan only (apply and rotate are not in it).
    expect(run("mr-3", "apply", ci("merge_request_event", { CI_MERGE_REQUEST_IID: "3" }))).toBeUndefined();
    expectJobOk(run("mr-3", "plan", ci("merge_request_event", { CI_MERGE_REQUEST_IID: "3" }))!);
    expect(sandbox.api().gitlab.notes.find((n) => n.issue === 3)!.body).toMatch(/\n<!-- mgmt-plan-summary:[A-Za-z0-9+/=]+ -->\n$/);

    const sha = merge("mr-3", 3, "gitlab");
    // A push to another branch runs no apply; the default branch's does.
    expect(run("main", "apply", ci("push", { CI_COMMIT_BRANCH: "feature", CI_COMMIT_SHA: sha }))).toBeUndefined();
    const applied = run("main", "apply", ci("push", { CI_COMMIT_BRANCH: "main", CI_COMMIT_SHA: sha }))!;
    expectJobOk(applied);
    expect(applied.steps[0]!.output).toMatch(/Apply complete! Resources: 8 added, 0 changed, 0 destroyed/);
    expect((await account(server)).keys.sort()).toEqual(["desk", "laptop"]);
    let results = sandbox.api().gitlab.notes.filter((n) => n.issue === 3 && n.body.startsWith("<!-- mgmt-apply-report:account -->"));
    expect(results.map((n) => n.body.split("\n").slice(1, 4).join("\n"))).toEqual([
      expect.stringMatching(/^## Apply: account\n\n:white_check_mark: \*\*Applied: the plan below, as review saw it\*\*/),
    ]);
    const state = await stateOf(pg);
    expectNoSecretIn(applied, [String(state["mgmt_token.ci"]!.token), pg]);

    // The schedule: only the rotation is due, so rotate applies it.
    const old = String(state["mgmt_token.ci"]!.token);
    await new Promise((r) => setTimeout(r, 1500));
    expect(run("main", "apply", ci("schedule"))).toBeUndefined();
    const rotated = run("main", "rotate", ci("schedule"))!;
    expectJobOk(rotated);
    expect(rotated.steps[0]!.output).toMatch(/Apply complete! Resources: 0 added, 1 changed, 0 destroyed/);
    const fresh = String((await stateOf(pg))["mgmt_token.ci"]!.token);
    expect([await status(server, old), await status(server, fresh)]).toEqual([401, 200]);

    // An out-of-band change after review: the same merge's apply, run again, applies nothing and says why.
    await deleteSshKey(server, "desk");
    const refused = run("main", "apply", ci("push", { CI_COMMIT_BRANCH: "main", CI_COMMIT_SHA: sha }))!;
    expect(refused.ok).toBe(false);
    expect(refused.steps.map((s) => s.name)).toEqual(["apply", "apply after_script"]);
    expect(refused.steps[0]!.output).toContain("Nothing was applied: the plan made now is not what the merge request's review saw.");
    expect((await account(server)).keys).toEqual(["laptop"]);
    results = sandbox.api().gitlab.notes.filter((n) => n.issue === 3 && n.body.startsWith("<!-- mgmt-apply-report:account -->"));
    expect(results).toHaveLength(2);
    expect(results[1]!.body).toContain(":x: **Nothing applied: the plan made now is not the one review saw**");

    // And the schedule, with that change pending, applies nothing either.
    const tokens = (await account(server)).tokens;
    const left = run("main", "rotate", ci("schedule"))!;
    expectJobOk(left);
    expect(left.steps[0]!.output).toContain("Nothing applied: the plan does more than rotate tokens.");
    expect(await account(server)).toMatchObject({ keys: ["laptop"], tokens });
  });

  it("drift runs when started by hand, and notes why when it closes its issue", async () => {
    expect(run("main", "drift", ci("push", { CI_COMMIT_BRANCH: "main" }))).toBeUndefined();
    // The key deleted above is drift: an issue opens.
    expectJobOk(run("main", "drift", ci("web"))!);
    expect(sandbox.api().gitlab.issues.map((i) => [i.title, i.state])).toEqual([["Drift: account", "open"]]);
    // Deployed again from a laptop (the key back, as the code says): the next run closes the issue, saying why.
    ok("npm", ["run", "deploy"], repo, w.withApi(server, { PG_CONN_STR: pg }));
    expectJobOk(run("main", "drift", ci("schedule"))!);
    const { issues, issueNotes } = sandbox.api().gitlab;
    expect(issues.map((i) => i.state)).toEqual(["closed"]);
    expect(issueNotes.map((n) => [n.issue, n.body])).toEqual([
      [issues[0]!.number, "No drift any more (checked by https://gitlab.example.test/team/infra/-/pipelines/9)."],
    ]);
  });
});
