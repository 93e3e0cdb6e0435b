/** @tier npm */
/**
 * The loop closed in CI: a repository from `mgmt init --backend pg --ci github,gitlab`, its apply jobs run as a
 * runner runs them (test/e2e/team-repo-runner.ts) against `mgmt serve` with the state in Postgres. A pull
 * request's plan, its merge applying exactly that (objects created, state written, the result posted), a
 * scheduled run rotating a token that is due (the new token made before the old is revoked), a merge whose plan
 * moved since review (an out-of-band change in between) applying nothing and saying so, and a scheduled run
 * with a change that is not a rotation applying nothing. GitHub's apply.yml, then GitLab's apply and rotate jobs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { MgmtClient } from "../../src/client";
import { availableEngines } from "../../src/harness/engine";
import type { RunningServer } from "../../src/harness/serve";
import { runPostgres } from "../global/run-postgres";
import { installedScaffold, linkInstalled } from "../support/scaffold-install";
import { tokenAnswers } from "../support/token-answers";
import { runGithubJob, runGitlabJob, seedNodeModules, type JobResult, type Runner } from "./team-repo-runner";
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
  seedNodeModules(sandbox.cacheDir, repo, join(installed, "node_modules"));
}, 30 * 60_000);

afterAll(() => w.cleanUp());

/** A commit on branch `branch` of `dir` (made from main) with main.ts's `from` replaced by `to`; its sha. */
function commitOn(dir: string, branch: string, message: string, ...edits: [string, string][]): string {
  ok("git", ["checkout", "-q", "-B", branch, "main"], dir);
  const main = join(dir, "main.ts");
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
  ok("git", ["commit", "-qam", message], dir);
  const sha = ok("git", ["rev-parse", "HEAD"], dir).trim();
  ok("git", ["checkout", "-q", "main"], dir);
  return sha;
}

/** The pull request merged (fast-forward): main of `dir` is at its commit, which the host knows came from `number`. */
function merge(dir: string, branch: string, number: number, host: "github" | "gitlab"): string {
  ok("git", ["merge", "-q", "--ff-only", branch], dir);
  const sha = ok("git", ["rev-parse", "HEAD"], dir).trim();
  sandbox.merged(sha, number, host);
  return sha;
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

/**
 * Until DUE_TOKEN's token in `state` is inside its renewal window, as the provider's plan decides it (expiry less
 * renew_before at or before now, on this machine's clock, which mgmt serve shares): a second after the token was
 * made, which by now has mostly passed already (a fixed 1.5 s wait slept it all every time).
 */
async function untilDue(state: Record<string, Record<string, unknown>>): Promise<void> {
  const expiry = String(state["mgmt_token.ci"]!.expiry);
  const due = Date.parse(expiry) - (59 * 60 + 59) * 1000;
  if (Number.isNaN(due)) throw new Error(`mgmt_token.ci has no expiry the test can read: ${expiry}`);
  // A tenth of a second past it: the plan that must see the token due runs seconds later still.
  await new Promise((r) => setTimeout(r, Math.max(0, due + 100 - Date.now())));
}

/** The version of the engine that wrote the state last, as the state in Postgres records it. */
async function writtenBy(pg: string): Promise<string> {
  const db = new Client({ connectionString: pg });
  await db.connect();
  try {
    const { rows } = await db.query<{ data: string }>(`SELECT data FROM ${STACK}.states`);
    return (JSON.parse(rows[0]!.data) as { terraform_version: string }).terraform_version;
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
    commitOn(repo, "pr-7", "Rename the team tag; a CI token", ['label: "team-platform"', 'label: "team-infra"'], ["    // importUnmanaged(this);", DUE_TOKEN]);
    expectJobOk(inCheckout("pr-7", (runner) => runGithubJob(planYml, "plan", runner, plan(7))));
    const comment = sandbox.api().github.comments.find((c) => c.issue === 7)!;
    expect(comment.body).toMatch(/\n<!-- mgmt-plan-summary:[A-Za-z0-9+/=]+ -->\n$/);

    const sha = merge(repo, "pr-7", 7, "github");
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
    await untilDue(before);
    expect(await tokenAnswers(server.url, old)).toBe(200);

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
    expect(await tokenAnswers(server.url, old)).toBe(401);
    expect(await tokenAnswers(server.url, fresh)).toBe(200);
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
    commitOn(repo, "pr-8", "Profile in UTC", ['timezone: "Europe/Berlin"', 'timezone: "UTC"']);
    expectJobOk(inCheckout("pr-8", (runner) => runGithubJob(planYml, "plan", runner, plan(8))));
    // Between review and merge: someone deletes the stack's key through the API.
    await deleteSshKey(server, "laptop");
    const stateBefore = await stateOf(pg);

    const sha = merge(repo, "pr-8", 8, "github");
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
    commitOn(repo, "mr-3", "A second key", [
      "    // importUnmanaged(this);",
      `    new sshKey.SshKey(this, "desk", { label: "desk", sshKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP8Evedj3XFY17sjYOwW2JqZV8Ybt0/vZE7MnZWk8fjf desk@example" });\n    // importUnmanaged(this);`,
    ]);
    // A merge request's pipeline: plan only (apply and rotate are not in it).
    expect(run("mr-3", "apply", ci("merge_request_event", { CI_MERGE_REQUEST_IID: "3" }))).toBeUndefined();
    expectJobOk(run("mr-3", "plan", ci("merge_request_event", { CI_MERGE_REQUEST_IID: "3" }))!);
    expect(sandbox.api().gitlab.notes.find((n) => n.issue === 3)!.body).toMatch(/\n<!-- mgmt-plan-summary:[A-Za-z0-9+/=]+ -->\n$/);

    const sha = merge(repo, "mr-3", 3, "gitlab");
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
    await untilDue(state);
    expect(run("main", "apply", ci("schedule"))).toBeUndefined();
    const rotated = run("main", "rotate", ci("schedule"))!;
    expectJobOk(rotated);
    expect(rotated.steps[0]!.output).toMatch(/Apply complete! Resources: 0 added, 1 changed, 0 destroyed/);
    const fresh = String((await stateOf(pg))["mgmt_token.ci"]!.token);
    expect([await tokenAnswers(server.url, old), await tokenAnswers(server.url, fresh)]).toEqual([401, 200]);

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

/** Terraform on PATH: a repository from `mgmt init --engine terraform`, whose workflows run `terraform`. */
const terraform = availableEngines().some((e) => e.name === "terraform");
const tfRepo = terraform ? w.scaffold("apply-terraform", "--engine", "terraform", "--backend", "pg", "--ci", "github") : "";

(terraform ? describe : describe.skip)("GitHub: apply.yml with Terraform (mgmt init --engine terraform)", () => {
  let server: RunningServer;
  let pg: string;
  let applyYml: string;
  const inCheckout = <T>(branch: string, run: (runner: Runner) => T): T => sandbox.inCheckout(tfRepo, branch, run);
  const settings = () => ({
    vars: { MGMT_URL: server.url },
    secrets: { MGMT_TOKEN: server.token, MGMT_APPLY_TOKEN: server.token, MGMT_DRIFT_TOKEN: server.token, PG_CONN_STR: pg },
  });

  beforeAll(async () => {
    // The run's one install serves this repository's packages too (OpenTofu's go unused); the lock is its own.
    linkInstalled(w, installed, tfRepo);
    ok("git", ["init", "-q", "-b", "main"], tfRepo);
    ok("git", ["add", "-A"], tfRepo);
    ok("git", ["commit", "-qm", "mgmt init --engine terraform"], tfRepo);
    seedNodeModules(sandbox.cacheDir, tfRepo, join(installed, "node_modules"));
    server = await w.serve("--no-default-fixtures");
    pg = await createDatabase(await runPostgres(), "state_apply_terraform");
    applyYml = readFileSync(join(tfRepo, ".github/workflows/apply.yml"), "utf8");
  });

  // Four jobs: the review's plan, the merge's apply, the schedule's rotation, and the merge's apply run again.
  it("a merge applies what review saw; the schedule rotates the due token, new before old; the merge re-run after an out-of-band change applies nothing", async () => {
    commitOn(tfRepo, "pr-9", "A CI token", ["    // importUnmanaged(this);", DUE_TOKEN]);
    const planYml = readFileSync(join(tfRepo, ".github/workflows/plan.yml"), "utf8");
    expect([planYml, applyYml].map((f) => f.includes("hashicorp/setup-terraform"))).toEqual([true, true]);
    const pr = githubContexts(settings());
    expectJobOk(
      inCheckout("pr-9", (runner) =>
        runGithubJob(planYml, "plan", runner, { ...pr, github: { ...(pr.github as object), event: { pull_request: { number: 9 } } } }),
      ),
    );
    expect(sandbox.api().github.comments.find((c) => c.issue === 9)!.body).toMatch(/\n<!-- mgmt-plan-summary:[A-Za-z0-9+/=]+ -->\n$/);

    const sha = merge(tfRepo, "pr-9", 9, "github");
    const applied = inCheckout("main", (runner) => runGithubJob(applyYml, "apply", runner, pushContexts(settings(), sha)));
    expectJobOk(applied);
    expect(step(applied, "Apply the saved plan").output).toMatch(/Apply complete! Resources: 7 added, 0 changed, 0 destroyed/);
    expect(await account(server)).toMatchObject({ tags: ["team-platform"], keys: ["laptop"], timezone: "Europe/Berlin" });
    // Written by the terraform on PATH, not by the OpenTofu the shared install also holds.
    const version = /Terraform v(\S+)/.exec(ok("terraform", ["version"], w.work))![1]!;
    expect(await writtenBy(pg)).toBe(version);
    const reports = () => sandbox.api().github.comments.filter((c) => c.issue === 9 && c.body.startsWith("<!-- mgmt-apply-report:account -->"));
    expect(reports().map((c) => c.body.split("\n").slice(1, 4).join("\n"))).toEqual([
      expect.stringMatching(/^## Apply: account\n\n:white_check_mark: \*\*Applied: the plan below, as review saw it\*\*/),
    ]);

    // The schedule: the token is due a second after it was made; the old value works until the new one exists.
    const before = await stateOf(pg);
    const [old, oldId] = [String(before["mgmt_token.ci"]!.token), Number(before["mgmt_token.ci"]!.id)];
    await untilDue(before);
    expect(await tokenAnswers(server.url, old)).toBe(200);
    const rotated = inCheckout("main", (runner) => runGithubJob(applyYml, "apply", runner, scheduleContexts(settings())));
    expectJobOk(rotated);
    expect(step(rotated, "Post the result").output).toMatch(/rotating `mgmt_token\.ci`: expires \d{4}-\d{2}-\d{2}, inside renew\\?_before 59m59s/i);
    expect(step(rotated, "Apply the saved plan").output).toMatch(/Apply complete! Resources: 0 added, 1 changed, 0 destroyed/);
    const after = await stateOf(pg);
    const [fresh, freshId] = [String(after["mgmt_token.ci"]!.token), Number(after["mgmt_token.ci"]!.id)];
    expect([await tokenAnswers(server.url, old), await tokenAnswers(server.url, fresh)]).toEqual([401, 200]);
    expect((await tokenEvents(server)).filter((e) => e.id === oldId || e.id === freshId)).toEqual([
      { action: "token_create", id: oldId },
      { action: "token_create", id: freshId },
      { action: "token_delete", id: oldId },
    ]);
    for (const job of [applied, rotated]) expectNoSecretIn(job, [old, fresh, String(after["mgmt_token.reporting"]!.token), pg]);

    // Out of band, after review: the key deleted through the API. The same merge's apply, run again, refuses.
    await deleteSshKey(server, "laptop");
    const refused = inCheckout("main", (runner) => runGithubJob(applyYml, "apply", runner, pushContexts(settings(), sha)));
    expect(refused.steps.filter((s) => !s.skipped && s.code !== 0).map((s) => [s.name, s.code])).toEqual([["Fail when the merge was not applied", 3]]);
    expect(step(refused, "Apply the saved plan").skipped).toBe(true);
    expect((await account(server)).keys).toEqual([]);
    expect(reports()).toHaveLength(2);
    expect(reports()[1]!.body).toContain(":x: **Nothing applied: the plan made now is not the one review saw**");
  });
});
