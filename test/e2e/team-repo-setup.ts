/**
 * What the tests of a repository from `mgmt init` share: a scratch folder with its own HOME (where
 * install-provider puts the provider), a person's shell environment, the commands run in it, the
 * scaffold, `mgmt serve` instances, a Postgres database per state, the recorder standing in for gh
 * and curl, and fresh checkouts for the CI runner (test/e2e/team-repo-runner.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { build } from "esbuild";
import { Client } from "pg";
import { MgmtClient } from "../../src/client";
import { repoPath } from "../../src/harness/paths";
import type { PostgresServer } from "../../src/harness/postgres";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { usePrebuiltAddon } from "../support/addon-prebuild";
import { emptyState, type FakeApiState } from "./team-repo-fake-api";
import type { JobResult, Runner } from "./team-repo-runner";

export interface Ran {
  readonly code: number | null;
  readonly out: string;
}

export interface TeamRepoWork {
  /** The scratch folder; removed by `cleanUp`. */
  readonly work: string;
  /** HOME for every command: the provider goes to HOME/.terraform.d/plugins. */
  readonly home: string;
  /** A person's shell: no engine configuration, no API settings, npm's own cache, a git identity. */
  readonly baseEnv: NodeJS.ProcessEnv;
  sh(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Ran;
  /** `sh` that throws with the output's tail when the command fails. */
  ok(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): string;
  /** baseEnv with the API settings of `server`. */
  withApi(server: RunningServer, extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** `mgmt init WORK/parent/infra FLAGS` with this build's tarballs. */
  scaffold(parent: string, ...flags: string[]): string;
  /** An in-memory `mgmt serve`, stopped by `cleanUp`. */
  serve(...args: string[]): Promise<RunningServer>;
  cleanUp(): Promise<void>;
}

export function teamRepoWork(prefix: string): TeamRepoWork {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const home = join(work, "home");
  usePrebuiltAddon(home);
  const npmCache = spawnSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).stdout.trim();
  const { TF_CLI_CONFIG_FILE: _a, MGMT_URL: _b, MGMT_TOKEN: _c, PG_CONN_STR: _d, ...clean } = process.env;
  const baseEnv: NodeJS.ProcessEnv = {
    ...clean,
    HOME: home,
    npm_config_cache: npmCache,
    npm_config_nodedir: "/usr",
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    CHECKPOINT_DISABLE: "1",
    FORCE_COLOR: "0",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.test",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.test",
  };
  const sh = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = baseEnv): Ran => {
    const r = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };
  const ok = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = baseEnv): string => {
    const r = sh(command, args, cwd, env);
    if (r.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.code}:\n${r.out.slice(-6000)}`);
    return r.out;
  };
  let servers: RunningServer[] = [];
  return {
    work,
    home,
    baseEnv,
    sh,
    ok,
    withApi: (server, extra = {}) => ({ ...baseEnv, MGMT_URL: server.url, MGMT_TOKEN: server.token, ...extra }),
    scaffold(parent, ...flags) {
      const dir = join(work, parent, "infra");
      ok(process.execPath, [repoPath("dist/cli.js"), "init", dir, ...flags], work);
      return dir;
    },
    async serve(...args) {
      const s = await startServe(["--port", "0", "--db", ":memory:", ...args]);
      servers.push(s);
      return s;
    },
    async cleanUp() {
      await Promise.all(servers.map((s) => s.stop()));
      servers = [];
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** A new database on `cluster`, as the engines' connection string for it. */
export async function createDatabase(cluster: PostgresServer, name: string): Promise<string> {
  const admin = new Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  // lib/pq, the engines' Postgres driver, asks for TLS unless told not to; the throwaway cluster has none.
  return `${cluster.urlFor(name)}?sslmode=disable`;
}

export interface CiSandbox {
  /** Where actions/cache keeps its folders. */
  readonly cacheDir: string;
  /** What the recorder holds: every gh and curl call, and the comments, notes and issues they made. */
  api(): FakeApiState;
  /** Records that `sha` on the default branch merged pull request `number` (GitHub) or merge request `number` (GitLab). */
  merged(sha: string, number: number, host: "github" | "gitlab"): void;
  /** A fresh clone of `branch` of `origin` (what actions/checkout leaves), run in, then removed. */
  inCheckout<T>(origin: string, branch: string, run: (runner: Runner) => T): T;
}

/** gh and curl answered by the recorder (test/e2e/team-repo-fake-api.ts), first on the runner's PATH, and a cache folder for actions/cache. */
export async function ciSandbox(w: TeamRepoWork): Promise<CiSandbox> {
  const fakeBin = join(w.work, "fake-bin");
  mkdirSync(fakeBin);
  const recorder = join(w.work, "fake-api.js");
  await build({ entryPoints: [join(__dirname, "team-repo-fake-api.ts")], bundle: true, platform: "node", outfile: recorder, logLevel: "error" });
  for (const tool of ["gh", "curl"]) {
    writeFileSync(join(fakeBin, tool), `#!/bin/sh\nexec "${process.execPath}" "${recorder}" ${tool} "$@"\n`, { mode: 0o755 });
  }
  const stateFile = join(w.work, "fake-api.json");
  writeFileSync(stateFile, JSON.stringify(emptyState()));
  const cacheDir = join(w.work, "runner-cache");
  mkdirSync(cacheDir);
  let checkouts = 0;
  return {
    cacheDir,
    api: () => JSON.parse(readFileSync(stateFile, "utf8")) as FakeApiState,
    merged(sha, number, host) {
      const state = JSON.parse(readFileSync(stateFile, "utf8")) as FakeApiState;
      state[host].merged[sha] = number;
      writeFileSync(stateFile, JSON.stringify(state));
    },
    inCheckout(origin, branch, run) {
      const workspace = join(w.work, `checkout-${++checkouts}`);
      w.ok("git", ["clone", "-q", "-b", branch, origin, workspace], w.work);
      try {
        return run({
          workspace,
          cacheDir,
          env: { ...w.baseEnv, PATH: `${fakeBin}${delimiter}${w.baseEnv.PATH ?? ""}`, FAKE_API_STATE: stateFile, npm_config_prefer_offline: "true" },
        });
      } finally {
        rmSync(workspace, { recursive: true, force: true });
      }
    },
  };
}

/** The contexts a GitHub job of the team's repository reads, for pull request 7 of team/infra. */
export const githubContexts = (over: Record<string, unknown>): Record<string, unknown> => ({
  github: { repository: "team/infra", run_id: "4242", event_name: "pull_request", token: "ghs_not_a_real_token", event: { pull_request: { number: 7 } } },
  matrix: { stack: "account" },
  vars: {},
  secrets: {},
  ...over,
});

/** The same contexts for a scheduled run. */
export const scheduleContexts = (over: Record<string, unknown>): Record<string, unknown> => {
  const c = githubContexts(over);
  return { ...c, github: { ...(c.github as Record<string, unknown>), event_name: "schedule", event: {} } };
};

/** The same contexts for a push of `sha` to main (a merge). */
export const pushContexts = (over: Record<string, unknown>, sha: string): Record<string, unknown> => {
  const c = githubContexts(over);
  return { ...c, github: { ...(c.github as Record<string, unknown>), event_name: "push", sha, ref: "refs/heads/main", event: {} } };
};

/** What a GitLab runner gives a merge request's pipeline (merge request 3 of project 42), with the API of `server`. */
export const gitlabMergeRequestEnv = (server: RunningServer): NodeJS.ProcessEnv => ({
  CI_PIPELINE_SOURCE: "merge_request_event",
  CI_API_V4_URL: "https://gitlab.example.test/api/v4",
  CI_PROJECT_ID: "42",
  CI_MERGE_REQUEST_IID: "3",
  GITLAB_API_TOKEN: "glpat-not-a-real-token",
  MGMT_URL: server.url,
  MGMT_TOKEN: server.token,
});

/** Every step that ran succeeded (the failing ones' output in the diff otherwise). */
export function expectJobOk(job: JobResult): void {
  expect({ ok: job.ok, failed: job.steps.filter((s) => s.code !== 0 && !s.skipped).map((s) => `${s.name}\n${s.output.slice(-4000)}`) }).toEqual({
    ok: true,
    failed: [],
  });
}

/** The engine command a scaffold runs: OpenTofu from its node_modules, or the terraform on PATH. */
export const ENGINE_COMMAND = { tofu: ["npx", "tofu"], terraform: ["terraform"] } as const;

/** A plan of the synthesized stack in `dir` proposes nothing (its output in the diff otherwise). */
export function expectNoChanges(w: TeamRepoWork, engine: keyof typeof ENGINE_COMMAND, dir: string, env: NodeJS.ProcessEnv): void {
  const [command, ...args] = ENGINE_COMMAND[engine];
  const r = w.sh(command, [...args, "plan", "-detailed-exitcode", "-no-color", "-input=false"], dir, env);
  expect({ code: r.code, out: r.code === 0 ? "" : r.out }).toEqual({ code: 0, out: "" });
}

/** What the scaffold's stack leaves in the account once deployed: its team tag and the profile's time zone. */
export async function expectStackDeployed(server: RunningServer): Promise<void> {
  const client = new MgmtClient({ url: server.url, token: server.token });
  try {
    const tags: string[] = [];
    for await (const t of client.listTags()) tags.push(t.label);
    expect(tags).toContain("team-platform");
    expect((await client.getProfile()).timezone).toBe("Europe/Berlin");
  } finally {
    await client.close();
  }
}

/**
 * The scaffold's own `npm test` as generated: one jest run against `mgmt serve --ephemeral`, the engine's test command
 * inside it (stack.test.ts). With the example main.ts its checks run too; with a stack of the team's own they stand aside.
 */
export function expectOwnTestsPass(w: TeamRepoWork, repo: string, stack: "example" | "own" = "example"): string {
  const out = w.ok("npm", ["test"], repo);
  expect(out).toMatch(/PASS __tests__\/stack\.test\.ts/);
  expect(out).toMatch(stack === "example" ? /Tests:\s+4 passed, 4 total/ : /Tests:\s+2 skipped, 2 passed, 4 total/);
  return out;
}
