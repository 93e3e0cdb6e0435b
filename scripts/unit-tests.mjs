#!/usr/bin/env node
// `npm run test:unit`: the inner loop. Every test file of the default jest project that starts no engine, runs
// no npm install and needs no database server; the whole suite (`npm test`) runs them again with the rest.
// What a file starts is read from what it imports, through test helpers, so a test that gains an engine
// leaves this tier by itself. `--list` prints the files instead of running them.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Modules whose use means an engine, a database server or an npm install. */
const SLOW = {
  "src/harness/engine.ts": "starts OpenTofu or Terraform",
  "src/harness/postgres.ts": "starts a PostgreSQL server",
  "test/e2e/team-repo-setup.ts": "installs a scaffold with npm",
};
/** The same, said in the file itself rather than by an import. */
const SLOW_TEXT = [[/\b(?:spawn|spawnSync|execFileSync|runProcess)\(\s*"npm",\s*\[\s*"(?:install|ci|pack)"/, "runs npm"]];

/**
 * The test helpers and harness modules a file imports. Product code is not followed: what a test starts, it
 * starts through the harness or a helper (product code that runs an engine, `mgmt drift`, is run as a process).
 */
const importsOf = (file) =>
  [...readFileSync(file, "utf8").matchAll(/(?:from\s+|import\(\s*|require\(\s*)"(\.{1,2}\/[^"]+)"/g)]
    .map(([, spec]) => {
      const base = resolve(dirname(file), spec);
      return [base, `${base}.ts`, join(base, "index.ts")].find((p) => existsSync(p) && p.endsWith(".ts"));
    })
    .filter((p) => p !== undefined && /^(test|testkit|src[/\\]harness)[/\\]/.test(relative(ROOT, p)));

const why = new Map();
/** Why a file is slow (its own text, or the first slow module it reaches), or undefined. */
function slowBecause(file, seen = new Set()) {
  if (why.has(file)) return why.get(file);
  if (seen.has(file)) return undefined;
  seen.add(file);
  const rel = relative(ROOT, file);
  let reason = SLOW[rel] ?? SLOW_TEXT.find(([re]) => re.test(readFileSync(file, "utf8")))?.[1];
  for (const dep of reason === undefined ? importsOf(file) : []) {
    const inner = slowBecause(dep, seen);
    if (inner !== undefined) {
      reason = inner;
      break;
    }
  }
  why.set(file, reason);
  return reason;
}

const tests = readdirSync(join(ROOT, "test"), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".test.ts") && !f.startsWith(join("server", "postgres")))
  .map((f) => join(ROOT, "test", f))
  .sort();
const fast = tests.filter((f) => slowBecause(f) === undefined);

if (process.argv.includes("--list")) {
  for (const f of tests)
    process.stdout.write(`${fast.includes(f) ? "unit " : "slow "} ${relative(ROOT, f)}${fast.includes(f) ? "" : `  (${slowBecause(f)})`}\n`);
  process.exit(0);
}
const jest = spawnSync(
  process.execPath,
  [join(ROOT, "node_modules", "jest", "bin", "jest.js"), "--selectProjects", "default", "--runTestsByPath", ...fast, ...process.argv.slice(2)],
  {
    cwd: ROOT,
    stdio: "inherit",
  },
);
process.exit(jest.status ?? 1);
