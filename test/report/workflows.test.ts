/** @tier cli */
/**
 * The CI examples: the very files `mgmt init --backend pg` writes into a team's repository (one
 * source: the templates in src/cli/init/templates), valid YAML of the shape each CI reads, the token
 * from the CI's secret store, nothing that needs this repository, and every `mgmt` command line in
 * them accepted by the real CLI (run with --help appended, so an unknown subcommand or flag fails
 * here rather than in someone's pipeline). test/e2e/team-repo.test.ts runs them.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import { STACK } from "../../src/cli/init";
import { scaffoldFiles } from "../../src/cli/init/scaffold";
import type { ScaffoldContext } from "../../src/cli/init/templates/context";
import { repoPath } from "../../src/harness/paths";
import { runMgmt } from "./run-mgmt";

/** Each example and the file of a scaffolded repository it is. */
const FROM_SCAFFOLD: Record<string, string> = {
  "examples/ci/github/plan.yml": ".github/workflows/plan.yml",
  "examples/ci/github/drift.yml": ".github/workflows/drift.yml",
  "examples/ci/github/apply.yml": ".github/workflows/apply.yml",
  "examples/ci/gitlab-ci.yml": ".gitlab-ci.yml",
};
const FILES = Object.keys(FROM_SCAFFOLD);

/** What `mgmt init --backend pg` fills the templates with (CI plans need shared state). */
const EXAMPLE_CONTEXT: ScaffoldContext = {
  ci: ["github", "gitlab"],
  backend: "pg",
  engine: "tofu",
  name: "infra",
  stack: STACK,
  provider: { name: "@mgmt/provider", version: "0.1.0", file: "packages/mgmt-provider-0.1.0.tgz" },
  bindings: { name: "@mgmt/cdktf-provider-mgmt", version: "0.1.0", file: "packages/mgmt-cdktf-provider-mgmt-0.1.0.tgz" },
};

function load(file: string): Record<string, unknown> {
  const doc = parseDocument(readFileSync(repoPath(file), "utf8"));
  expect({ file, errors: doc.errors.map(String), warnings: doc.warnings.map(String) }).toEqual({ file, errors: [], warnings: [] });
  return doc.toJS() as Record<string, unknown>;
}

interface GithubStep {
  run?: string;
  uses?: string;
}
type GithubWorkflow = { on: Record<string, unknown>; jobs: Record<string, { steps: GithubStep[]; env: Record<string, string> }> };
type GitlabJob = { script?: string[]; before_script?: string[]; rules?: { if: string }[] };

/** Every shell script a file runs. */
function scripts(file: string, y: Record<string, unknown>): string[] {
  if (file.includes("/github/")) return Object.values((y as GithubWorkflow).jobs).flatMap((j) => j.steps.map((s) => s.run ?? ""));
  const jobs = Object.values(y).filter((v): v is GitlabJob => typeof v === "object" && v !== null && ("script" in v || "before_script" in v));
  return jobs.flatMap((j) => [...(j.before_script ?? []), ...(j.script ?? [])]);
}

/** `mgmt SUB args...` on one line, up to the first redirect, pipe or list operator. */
function mgmtCommands(script: string): string[] {
  const out: string[] = [];
  for (const line of script.replace(/\\\n\s*/g, " ").split("\n")) {
    for (const m of line.matchAll(/(?:^|[\s/"])mgmt"?\s+([a-z][a-z-]*\b[^\n]*)/g)) out.push(m[1]!.split(/\s(?:>|\|\|?|;|&&)\s?/)[0]!.trim());
  }
  return out;
}

/** Words of a command line, with CI expressions and shell variables standing in as plain words. */
function words(line: string): string[] {
  const text = line.replace(/\$\{\{[^}]*\}\}/g, "x").replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, "x");
  const out: string[] = [];
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

describe("CI workflow examples", () => {
  const loaded = Object.fromEntries(FILES.map((f) => [f, load(f)]));

  it("are what mgmt init --backend pg writes", () => {
    const files = scaffoldFiles(EXAMPLE_CONTEXT);
    for (const [example, path] of Object.entries(FROM_SCAFFOLD)) {
      expect({ example, text: readFileSync(repoPath(example), "utf8") }).toEqual({ example, text: files.get(path)!.text });
    }
  });

  it("need nothing of this repository: no build, no paths into bin/ or node_modules, every tool through npx", () => {
    for (const file of FILES) {
      const text = readFileSync(repoPath(file), "utf8");
      expect({ file, found: text.match(/npm run build|bin\/mgmt|node_modules\/opentofu|node_modules\/\.bin\/|\$GITHUB_WORKSPACE\/|dist\//g) }).toEqual({
        file,
        found: null,
      });
      for (const script of scripts(file, loaded[file]!)) {
        for (const line of script.split("\n")) {
          if (/(^|[\s$(])(mgmt|tofu|cdktf)\s/.test(line)) expect({ file, line }).toEqual({ file, line: expect.stringMatching(/npx (mgmt|tofu|cdktf)\s/) });
        }
      }
    }
  });

  it("are GitHub workflows and a GitLab pipeline of the expected shape", () => {
    const plan = loaded["examples/ci/github/plan.yml"] as GithubWorkflow;
    const drift = loaded["examples/ci/github/drift.yml"] as GithubWorkflow;
    expect(Object.keys(plan.on)).toEqual(["pull_request"]);
    expect(Object.keys(drift.on)).toEqual(expect.arrayContaining(["schedule"]));
    for (const w of [plan, drift]) {
      for (const job of Object.values(w.jobs)) {
        for (const step of job.steps) expect(typeof step.run === "string" || typeof step.uses === "string").toBe(true);
        // The token comes from the CI's secret store, never from the file.
        expect(job.env.MGMT_TOKEN).toMatch(/^\$\{\{ secrets\.[A-Z_]+ \}\}$/);
      }
    }
    const gitlab = loaded["examples/ci/gitlab-ci.yml"] as Record<string, GitlabJob>;
    expect(gitlab.plan!.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]);
    expect(gitlab.drift!.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule"' }, { if: '$CI_PIPELINE_SOURCE == "web"' }]);
    // Applies: merges to the default branch and the schedule, one at a time per stack, never cancelled.
    expect(gitlab.apply!.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH' }]);
    expect(gitlab.rotate!.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule"' }]);
    for (const job of [gitlab.apply, gitlab.rotate]) expect((job as { resource_group?: string }).resource_group).toBe("mgmt-apply-$STACK");
    const apply = loaded["examples/ci/github/apply.yml"] as GithubWorkflow & { jobs: Record<string, { concurrency?: unknown }> };
    expect(Object.keys(apply.on)).toEqual(["push", "schedule", "workflow_dispatch"]);
    expect(apply.jobs.apply!.concurrency).toEqual({ group: "apply-${{ matrix.stack }}", "cancel-in-progress": false });
    expect(apply.jobs.apply!.env.MGMT_TOKEN).toBe("${{ secrets.MGMT_APPLY_TOKEN }}");
    // No token's value in the file: MGMT_TOKEN is set only from another variable (drift's from MGMT_DRIFT_TOKEN, the applies' from MGMT_APPLY_TOKEN).
    expect(readFileSync(repoPath("examples/ci/gitlab-ci.yml"), "utf8")).not.toMatch(/MGMT_TOKEN\s*[:=]\s*(?!"?\$\{?MGMT_(DRIFT|APPLY)_TOKEN\b)/);
  });

  const commands = FILES.flatMap((f) => scripts(f, loaded[f]!).flatMap((s) => mgmtCommands(s).map((c) => [f, c] as const)));

  it("install the provider and contain plan-report, policy, drift and warm command lines in each CI", () => {
    const seen = (file: string) => [...new Set(commands.filter(([f]) => f === file).map(([, c]) => words(c)[0]))].sort();
    expect(seen("examples/ci/github/plan.yml")).toEqual(["install-provider", "plan-report", "policy", "warm"]);
    expect(seen("examples/ci/github/drift.yml")).toEqual(["drift", "install-provider"]);
    expect(seen("examples/ci/github/apply.yml")).toEqual(["install-provider", "plan-report", "warm"]);
    expect(seen("examples/ci/gitlab-ci.yml")).toEqual(["drift", "install-provider", "plan-report", "policy", "warm"]);
  });

  it.each(commands)("%s: `mgmt %s` is accepted by the CLI", async (_file, command) => {
    const [sub, ...rest] = words(command);
    // What follows `--` is the command `mgmt warm` runs, not arguments of its own.
    const args = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
    const r = await runMgmt([sub!, ...args, "--help"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(new RegExp(`^usage: mgmt ${sub} `));
  });

  it("have shell scripts that bash can parse", () => {
    for (const file of FILES) {
      for (const script of scripts(file, loaded[file]!)) {
        const r = spawnSync("bash", ["-n"], { input: script.replace(/\$\{\{[^}]*\}\}/g, "x"), encoding: "utf8" });
        expect({ file, script, stderr: r.stderr, status: r.status }).toEqual({ file, script, stderr: "", status: 0 });
      }
    }
  });

  it("would notice a flag the CLI does not have", async () => {
    const r = await runMgmt(["drift", "--dir", "x", "--no-such-flag", "--help"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Unknown option '--no-such-flag'/);
  });
});
