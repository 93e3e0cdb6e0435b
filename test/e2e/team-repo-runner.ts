/**
 * A CI runner in miniature for the scaffold's own workflow files: each GitHub job's `run:` steps and
 * each GitLab job's script run in order with `bash -e`, the job's environment and the variables a
 * runner sets. Actions are stood in for by what they do: checkout is the clone the caller made,
 * setup-node the node on PATH (which must be the major version it asks for, as must a GitLab
 * job's node image), setup-terraform (without its wrapper) the terraform on PATH, cache
 * copies a folder in and out of a cache directory, upload-artifact copies the file aside. `${{ }}`
 * expressions are evaluated for the few forms the workflows use (context paths, ==/!= against a
 * string, failure(), always(), hashFiles()); a condition without a status function runs only while the job has not failed.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parse } from "yaml";

export interface StepResult {
  readonly name: string;
  readonly skipped: boolean;
  readonly code: number | null;
  readonly output: string;
  /** The step's wall time (0 when skipped). */
  readonly seconds: number;
}

export interface JobResult {
  readonly ok: boolean;
  readonly steps: StepResult[];
}

/**
 * A job's wall time, all of it and up to the end of the step named `until` (the plan job's comment, say), with
 * each step that took a tenth of a second or more: what docs/benchmarks.md reports of the generated plan job.
 */
export function jobTiming(job: JobResult, until?: string): string {
  const sum = (steps: readonly StepResult[]) => steps.reduce((total, s) => total + s.seconds, 0);
  const upTo = until === undefined ? -1 : job.steps.findIndex((s) => s.name === until);
  const steps = job.steps
    .filter((s) => s.seconds >= 0.1)
    .map((s) => `${s.name} ${s.seconds.toFixed(1)} s`)
    .join(", ");
  return `${sum(job.steps).toFixed(1)} s${upTo < 0 ? "" : `, ${sum(job.steps.slice(0, upTo + 1)).toFixed(1)} s to the end of "${until}"`} (${steps})`;
}

export interface Runner {
  /** The folder the checkout is in (the workspace). */
  readonly workspace: string;
  /** Where actions/cache keeps its folders between jobs. */
  readonly cacheDir: string;
  /** What every step's process starts with: PATH (with the fake gh and curl first), HOME, npm's cache ... */
  readonly env: NodeJS.ProcessEnv;
}

interface GithubStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number>;
  "working-directory"?: string;
}
interface GithubJob {
  env?: Record<string, string>;
  steps: GithubStep[];
}

type Context = Record<string, unknown>;

function lookup(ctx: Context, path: string): unknown {
  return path.split(".").reduce<unknown>((v, key) => (v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined), ctx);
}

function evaluate(expr: string, ctx: Context, workspace: string): unknown {
  const e = expr.trim();
  if (e === "failure()") return ctx.failed === true;
  if (e === "success()") return ctx.failed !== true;
  if (e === "always()") return true;
  let m = e.match(/^hashFiles\('([^']+)'\)$/);
  if (m)
    return createHash("sha256")
      .update(readFileSync(join(workspace, m[1]!)))
      .digest("hex");
  m = e.match(/^(.+?)\s*(==|!=)\s*'([^']*)'$/);
  if (m) return (String(evaluate(m[1]!, ctx, workspace) ?? "") === m[3]) === (m[2] === "==");
  if (!/^[a-z_]+(\.[A-Za-z0-9_-]+)*$/.test(e)) throw new Error(`runner: no evaluation for \${{ ${e} }}`);
  return lookup(ctx, e);
}

function substitute(text: string, ctx: Context, workspace: string): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => String(evaluate(expr, ctx, workspace) ?? ""));
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): { code: number | null; output: string; seconds: number } {
  const started = performance.now();
  const r = spawnSync("bash", ["-e", "-c", script], { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, output: `${r.stdout}${r.stderr}`, seconds: (performance.now() - started) / 1000 };
}

/** Copies a cached folder in as hard links (a restore is read-only use of it), or a finished one out whole. */
function copyTree(from: string, to: string, link: boolean): void {
  const r = spawnSync("cp", [link ? "-al" : "-a", from, to]);
  if (r.status !== 0) throw new Error(`runner: cp ${from} ${to}: ${String(r.stderr)}`);
}

/** A folder cached under `key`: restored into the workspace on a hit, saved after a successful job on a miss. */
function cacheKeyDir(runner: Pick<Runner, "cacheDir">, key: string): string {
  return join(runner.cacheDir, createHash("sha256").update(key).digest("hex").slice(0, 16));
}

/** Puts `from` (as hard links) into the cache under `key`, as an earlier job's post step would have saved it. */
export function seedCache(cacheDir: string, key: string, from: string): void {
  copyTree(from, cacheKeyDir({ cacheDir }, key), true);
}

/**
 * The node_modules cache of each CI file `repo` has (plan.yml's `node-modules-Linux-<lock>`, .gitlab-ci.yml's
 * `gitlab-<lock>-node_modules/`) holding `nodeModules` for its package-lock.json, as an earlier job on that
 * lock file would have saved it: the jobs then skip their npm ci (a cold one is team-repo.test.ts's).
 */
export function seedNodeModules(cacheDir: string, repo: string, nodeModules: string): void {
  const lock = createHash("sha256")
    .update(readFileSync(join(repo, "package-lock.json")))
    .digest("hex");
  if (existsSync(join(repo, ".github", "workflows", "plan.yml"))) seedCache(cacheDir, `node-modules-Linux-${lock}`, nodeModules);
  if (existsSync(join(repo, ".gitlab-ci.yml"))) seedCache(cacheDir, `gitlab-${lock}-node_modules/`, nodeModules);
}

/**
 * The stand-in for setup-node and for a GitLab job's node image: the node on the runner's PATH is the
 * node the job asks for (its major version), so that a job proven here runs on the Node it names.
 */
function nodeAsked(what: string, major: string | undefined, env: NodeJS.ProcessEnv): { code: number; output: string } {
  const r = spawnSync("node", ["-p", "process.versions.node"], { env, encoding: "utf8" });
  const onPath = r.stdout.trim();
  if (major !== undefined && onPath.split(".")[0] === major) return { code: 0, output: "" };
  return { code: 1, output: `runner: the job asks for ${what}; the node on the runner's PATH is ${onPath || r.stderr.trim()}` };
}

/**
 * Runs one job of a GitHub workflow in `runner.workspace`. `contexts` gives what expressions read
 * (github, matrix, secrets, vars); `runner` and `steps` are filled in here.
 */
export function runGithubJob(workflowText: string, jobName: string, runner: Runner, contexts: Context): JobResult {
  const workflow = parse(workflowText) as { jobs: Record<string, GithubJob> };
  const job = workflow.jobs[jobName]!;
  const temp = mkdtempSync(join(runner.cacheDir, "..", "runner-temp-"));
  const ctx: Context = { ...contexts, runner: { os: "Linux", temp }, steps: {}, failed: false };
  const steps = ctx.steps as Record<string, { outputs: Record<string, string> }>;
  const jobEnv = Object.fromEntries(Object.entries(job.env ?? {}).map(([k, v]) => [k, substitute(String(v), ctx, runner.workspace)]));
  const summary = join(temp, "step-summary.md");
  const base: NodeJS.ProcessEnv = {
    ...runner.env,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: runner.workspace,
    GITHUB_REPOSITORY: String(lookup(ctx, "github.repository")),
    GITHUB_SERVER_URL: "https://github.example.test",
    GITHUB_RUN_ID: String(lookup(ctx, "github.run_id")),
    GITHUB_SHA: String(lookup(ctx, "github.sha") ?? ""),
    GITHUB_EVENT_NAME: String(lookup(ctx, "github.event_name")),
    GITHUB_STEP_SUMMARY: summary,
    RUNNER_TEMP: temp,
    RUNNER_OS: "Linux",
  };
  const saves: { path: string; dir: string }[] = [];
  const results: StepResult[] = [];
  job.steps.forEach((step, index) => {
    const name = step.name ?? step.uses ?? step.run!.split("\n")[0]!;
    // As GitHub does: a condition without a status function runs only while the job has not failed.
    const condition = (step.if ?? "success()").replace(/^\$\{\{\s*|\s*\}\}$/g, "");
    const statusChecked = /\b(success|failure|always|cancelled)\(\)/.test(condition);
    if ((!statusChecked && ctx.failed === true) || !evaluate(condition, ctx, runner.workspace)) {
      results.push({ name, skipped: true, code: null, output: "", seconds: 0 });
      return;
    }
    const started = performance.now();
    const outputs: Record<string, string> = {};
    let result: { code: number | null; output: string };
    if (step.uses !== undefined) {
      const w = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v), ctx, runner.workspace)]));
      const action = step.uses.replace(/@.*$/, "");
      if (action === "actions/checkout") result = { code: 0, output: "" };
      else if (action === "actions/setup-node") result = nodeAsked(`node-version ${w["node-version"]}`, w["node-version"], runner.env);
      else if (action === "hashicorp/setup-terraform") {
        // The wrapper would change what `terraform show -json` prints; the workflow turns it off.
        if (w.terraform_wrapper !== "false") throw new Error("runner: hashicorp/setup-terraform stands in only with terraform_wrapper: false");
        result = { code: 0, output: "" };
      } else if (action === "actions/cache") {
        const dir = cacheKeyDir(runner, w.key!);
        const path = join(runner.workspace, w.path!);
        if (existsSync(dir)) {
          copyTree(dir, path, true);
          outputs["cache-hit"] = "true";
        } else {
          outputs["cache-hit"] = "false";
          saves.push({ path, dir });
        }
        result = { code: 0, output: "" };
      } else if (action === "actions/upload-artifact") {
        const artifacts = join(temp, "artifacts", w.name!);
        mkdirSync(artifacts, { recursive: true });
        cpSync(resolve(runner.workspace, w.path!), join(artifacts, "file"));
        result = { code: 0, output: "" };
      } else if (action === "github/codeql-action/upload-sarif") {
        // Code scanning takes SARIF 2.1.0 with at least one run; the stand-in checks that much of what it would upload.
        const doc = JSON.parse(readFileSync(resolve(runner.workspace, w.sarif_file!), "utf8")) as { version?: string; runs?: unknown[] };
        const ok = doc.version === "2.1.0" && Array.isArray(doc.runs) && doc.runs.length > 0;
        result = { code: ok ? 0 : 1, output: ok ? "" : `not SARIF 2.1.0 with a run: ${w.sarif_file}` };
      } else throw new Error(`runner: no stand-in for ${step.uses}`);
    } else {
      const outputFile = join(temp, `output-${index}`);
      writeFileSync(outputFile, "");
      const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), ctx, runner.workspace)]));
      const cwd = join(runner.workspace, substitute(step["working-directory"] ?? ".", ctx, runner.workspace));
      result = bash(substitute(step.run!, ctx, runner.workspace), cwd, { ...base, ...jobEnv, ...stepEnv, GITHUB_OUTPUT: outputFile });
      for (const line of readFileSync(outputFile, "utf8").split("\n")) {
        const eq = line.indexOf("=");
        if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
      }
    }
    if (step.id !== undefined) steps[step.id] = { outputs };
    if (result.code !== 0) ctx.failed = true;
    results.push({ name, skipped: false, ...result, seconds: (performance.now() - started) / 1000 });
  });
  // actions/cache's post step: a miss is saved when the job succeeded.
  if (!ctx.failed) for (const { path, dir } of saves) if (existsSync(path)) copyTree(path, dir, false);
  return { ok: !ctx.failed, steps: results };
}

interface GitlabJob {
  variables?: Record<string, string>;
  rules?: { if: string }[];
  before_script?: string[];
  script: string[];
  after_script?: string[];
  cache?: { key: { files: string[] }; paths: string[] };
}

/** Whether a job's `rules: - if:` admits the pipeline (only `$VAR == "value"` and `$VAR == $OTHER` forms, joined by `&&`). */
function admitted(rules: { if: string }[] | undefined, env: NodeJS.ProcessEnv): boolean {
  if (!rules) return true;
  return rules.some(({ if: cond }) =>
    cond.split("&&").every((part) => {
      const m = part.trim().match(/^\$([A-Z_]+)\s*==\s*(?:"([^"]*)"|\$([A-Z_]+))$/);
      if (!m) throw new Error(`runner: no evaluation for rule ${cond}`);
      const value = env[m[1]!];
      return value !== undefined && value === (m[2] ?? env[m[3]!]);
    }),
  );
}

/**
 * Runs one GitLab job: the default's before_script and cache with the job's own, the global and job
 * variables, the CI_* variables in `ciEnv`, and all the lines in one `bash -e` (as the runner's one shell), then
 * after_script in a shell of its own with CI_JOB_STATUS.
 * Returns undefined when the job's rules leave it out of this pipeline.
 */
export function runGitlabJob(pipelineText: string, jobName: string, runner: Runner, ciEnv: NodeJS.ProcessEnv): JobResult | undefined {
  const pipeline = parse(pipelineText) as Record<string, unknown> & { variables?: Record<string, string>; default?: Partial<GitlabJob> };
  const job = pipeline[jobName] as GitlabJob;
  const env: NodeJS.ProcessEnv = {
    ...runner.env,
    CI: "true",
    GITLAB_CI: "true",
    CI_PROJECT_DIR: runner.workspace,
    CI_JOB_NAME: jobName,
    ...ciEnv,
    ...pipeline.variables,
    ...job.variables,
  };
  if (!admitted(job.rules, env)) return undefined;
  const image = (job as { image?: string }).image ?? (pipeline.default as { image?: string } | undefined)?.image;
  const nodeImage = image?.match(/^node:(\d+)/);
  if (nodeImage) {
    const asked = nodeAsked(`the image ${image}`, nodeImage[1], runner.env);
    if (asked.code !== 0) return { ok: false, steps: [{ name: jobName, skipped: false, ...asked, seconds: 0 }] };
  }
  const cache = job.cache ?? pipeline.default?.cache;
  const saves: { path: string; dir: string }[] = [];
  if (cache) {
    const key = cache.key.files
      .map((f) =>
        createHash("sha256")
          .update(readFileSync(join(runner.workspace, f)))
          .digest("hex"),
      )
      .join("-");
    for (const p of cache.paths) {
      const dir = cacheKeyDir(runner, `gitlab-${key}-${p}`);
      const path = join(runner.workspace, p);
      if (existsSync(dir)) copyTree(dir, path, true);
      else saves.push({ path, dir });
    }
  }
  const lines = [...(job.before_script ?? pipeline.default?.before_script ?? []), ...job.script];
  const result = bash(lines.join("\n"), runner.workspace, env);
  if (result.code === 0) for (const { path, dir } of saves) if (existsSync(path)) copyTree(path, dir, false);
  const steps: StepResult[] = [{ name: jobName, skipped: false, ...result }];
  // after_script: a shell of its own in the project folder, told how the job went; its failure does not fail the job.
  const after = job.after_script ?? pipeline.default?.after_script;
  if (after) {
    const status = result.code === 0 ? "success" : "failed";
    steps.push({ name: `${jobName} after_script`, skipped: false, ...bash(after.join("\n"), runner.workspace, { ...env, CI_JOB_STATUS: status }) });
  }
  return { ok: result.code === 0, steps };
}
