/** @tier npm */
/**
 * A type error in main.ts, in a repository from `mgmt init`: the scripts' synth strips main.ts's types
 * without checking them (tools/transpile.js), so the type check is `npm run typecheck`'s, and it must
 * still fail the repository's own `npm test` (at its end: the check runs beside the tests) and both CI
 * plan jobs with the compiler's message, before anything is synthesized, planned or posted. The repository
 * links the run's one install of the scaffold's packages (test/support/scaffold-install.ts); the jobs start
 * from it cached.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunningServer } from "../../src/harness/serve";
import { installedScaffold, linkInstalled } from "../support/scaffold-install";
import { runGithubJob, runGitlabJob, seedNodeModules } from "./team-repo-runner";
import { ciSandbox, githubContexts, gitlabMergeRequestEnv, teamRepoWork, type CiSandbox } from "./team-repo-setup";

jest.setTimeout(10 * 60_000);

const w = teamRepoWork("mgmt-typecheck-");
const repo = w.scaffold("typecheck", "--ci", "github,gitlab");
/** What tsc says of the error below: the file, the line and column, the code and the message. */
const COMPILER_MESSAGE = /main\.ts\(\d+,\d+\): error TS2322: Type 'number' is not assignable to type 'string'\./;

let sandbox: CiSandbox;
let server: RunningServer;

beforeAll(async () => {
  const installed = await installedScaffold(w);
  linkInstalled(w, installed, repo);
  w.ok("npx", ["mgmt", "install-provider"], repo);
  // A value of the wrong type: node runs it as it is (the synth would write it), only the compiler refuses it.
  const main = join(repo, "main.ts");
  const text = readFileSync(main, "utf8");
  expect(text).toContain('timezone: "Europe/Berlin"');
  writeFileSync(main, text.replace('timezone: "Europe/Berlin"', "timezone: 42"));
  w.ok("git", ["init", "-q", "-b", "main"], repo);
  w.ok("git", ["add", "-A"], repo);
  w.ok("git", ["commit", "-qm", "mgmt init, then a type error"], repo);
  sandbox = await ciSandbox(w);
  seedNodeModules(sandbox.cacheDir, repo, join(installed, "node_modules"));
  server = await w.serve();
}, 30 * 60_000);

afterAll(() => w.cleanUp());

describe("a type error in main.ts", () => {
  it("the synth alone does not catch: node runs main.ts with its types stripped", () => {
    w.ok("npm", ["run", "synth"], repo);
    const synthesized = readFileSync(join(repo, "cdktf.out", "stacks", "account", "cdk.tf.json"), "utf8");
    expect(synthesized).toContain('"timezone": 42');
  });

  it("fails npm test with the compiler's message, after the tests it ran beside", () => {
    const r = w.sh("npm", ["test"], repo);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(COMPILER_MESSAGE);
    // The global teardown's failure, once the tests (against the throwaway server) have run.
    expect(r.out).toMatch(/the type check \(npm run typecheck\) failed:/);
    expect(r.out.indexOf("Tests:")).toBeGreaterThan(-1);
    expect(r.out.lastIndexOf("the type check (npm run typecheck) failed:")).toBeGreaterThan(r.out.indexOf("Tests:"));
  });

  it("fails the GitHub plan job at its type check with the compiler's message: no synth, no plan", () => {
    const workflow = readFileSync(join(repo, ".github/workflows/plan.yml"), "utf8");
    const contexts = githubContexts({ vars: { MGMT_URL: server.url }, secrets: { MGMT_TOKEN: server.token } });
    const job = sandbox.inCheckout(repo, "main", (runner) => runGithubJob(workflow, "plan", runner, contexts));
    expect(job.ok).toBe(false);
    const failed = job.steps.filter((s) => !s.skipped && s.code !== 0);
    expect(failed.map((s) => s.name)).toEqual(["Type-check"]);
    expect(failed[0]!.output).toMatch(COMPILER_MESSAGE);
    expect(job.steps.filter((s) => ["Synthesize", "Plan"].includes(s.name)).map((s) => s.skipped)).toEqual([true, true]);
  });

  it("fails the GitLab plan job with the compiler's message before its synth", () => {
    const pipeline = readFileSync(join(repo, ".gitlab-ci.yml"), "utf8");
    const job = sandbox.inCheckout(repo, "main", (runner) => runGitlabJob(pipeline, "plan", runner, gitlabMergeRequestEnv(server)))!;
    expect(job.ok).toBe(false);
    const [plan] = job.steps;
    expect(plan!.output).toMatch(COMPILER_MESSAGE);
    expect(plan!.output).not.toContain("tools/stack.js synth");
  });
});
