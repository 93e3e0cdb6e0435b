#!/usr/bin/env node
// Test tiers: each test file declares its tier on its first line (`/** @tier unit */`), and this module reads
// the declarations. `npm run test:unit` runs the `unit` files (scripts/unit-tests.mjs); `npm run lint` runs this
// script, which fails when a file declares no tier, an unknown one, or `unit` while it reaches what a unit
// file must not start (read from its imports, through test helpers, and its own text): so a file written on
// another branch is caught at merge, and a test that gains an engine or a CLI process leaves the tier.
// `node scripts/test-tiers.mjs [--root DIR]` checks; `--list` prints each file's tier.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The tiers, and what a file of each starts. */
export const TIERS = {
  unit: "nothing beyond its own process (and servers in it): test:unit runs it",
  cli: "the mgmt CLI or mgmt serve as a process",
  engine: "OpenTofu or Terraform",
  postgres: "a PostgreSQL server",
  npm: "npm (install, ci or pack)",
};

/** Modules whose use puts a file in a tier other than unit. */
const STARTS = {
  "src/harness/engine.ts": "engine",
  "src/harness/postgres.ts": "postgres",
  "test/e2e/team-repo-setup.ts": "npm",
  "src/harness/serve.ts": "cli",
  "test/report/run-mgmt.ts": "cli",
};
/** The same, said in the file itself rather than by an import. */
const STARTS_TEXT = [
  [/\b(?:spawn|spawnSync|execFileSync|runProcess)\(\s*"npm",\s*\[\s*"(?:install|ci|pack)"/, "npm"],
  [/\bdist\/cli\.js\b|\bbin\/mgmt\b/, "cli"],
];

const DECLARATION = /^\/\*\* @tier (\w+) \*\/$/;

/** The tier `file` declares on its first line, or undefined. */
export const declaredTier = (file) => DECLARATION.exec(readFileSync(file, "utf8").split("\n", 1)[0] ?? "")?.[1];

/** The test helpers and harness modules a file imports (product code is not followed: what a test starts, it starts through them). */
const importsOf = (root, file) =>
  [...readFileSync(file, "utf8").matchAll(/(?:from\s+|import\(\s*|require\(\s*)"(\.{1,2}\/[^"]+)"/g)]
    .map(([, spec]) => {
      const base = resolve(dirname(file), spec);
      return [base, `${base}.ts`, join(base, "index.ts")].find((p) => existsSync(p) && p.endsWith(".ts"));
    })
    .filter((p) => p !== undefined && /^(test|testkit|src[/\\]harness)[/\\]/.test(relative(root, p)));

/** The tiers other than unit, heaviest first: a file that starts several is of the heaviest. */
const RANK = ["npm", "engine", "postgres", "cli"];

/** Everything a file starts, read from its text and imports, as `{ tier, because }` (the module or the text). */
function startsOf(root, file, seen) {
  if (seen.has(file)) return [];
  seen.add(file);
  const rel = relative(root, file);
  if (STARTS[rel] !== undefined) return [{ tier: STARTS[rel], because: rel }];
  const text = readFileSync(file, "utf8");
  const found = STARTS_TEXT.filter(([re]) => re.test(text)).map(([re, tier]) => ({ tier, because: `${rel} (${re.exec(text)[0]})` }));
  for (const dep of importsOf(root, file)) found.push(...startsOf(root, dep, seen));
  return found;
}

/** The heaviest thing a file starts, `{ tier, because }`, or undefined for nothing (a unit file). */
export function inferredTier(root, file) {
  const found = startsOf(root, file, new Set());
  for (const tier of RANK) {
    const hit = found.find((s) => s.tier === tier);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** Every test file under `root`/test, sorted; `defaultProject`: only those of jest's default project (not test/server/postgres/). */
export function testFiles(root, { defaultProject = true } = {}) {
  return readdirSync(join(root, "test"), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".test.ts") && !(defaultProject && f.startsWith(join("server", "postgres"))))
    .map((f) => join(root, "test", f))
    .sort();
}

/** Each problem of the tree's declarations, as `file: what`. */
export function tierProblems(root) {
  const problems = [];
  for (const file of testFiles(root, { defaultProject: false })) {
    const rel = relative(root, file);
    const tier = declaredTier(file);
    if (tier === undefined) problems.push(`${rel}: declares no tier (its first line: /** @tier ${Object.keys(TIERS).join("|")} */)`);
    else if (!(tier in TIERS)) problems.push(`${rel}: declares the unknown tier ${tier} (${Object.keys(TIERS).join(", ")})`);
    else if (tier === "unit") {
      const starts = inferredTier(root, file);
      if (starts !== undefined)
        problems.push(`${rel}: declares unit but starts ${TIERS[starts.tier]} (through ${starts.because}): declare @tier ${starts.tier}`);
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--root");
  const root = at === -1 ? join(dirname(fileURLToPath(import.meta.url)), "..") : resolve(process.argv[at + 1]);
  if (process.argv.includes("--list")) {
    for (const file of testFiles(root, { defaultProject: false })) process.stdout.write(`${(declaredTier(file) ?? "-").padEnd(8)} ${relative(root, file)}\n`);
    process.exit(0);
  }
  const problems = tierProblems(root);
  for (const p of problems) process.stderr.write(`test-tiers: ${p}\n`);
  process.exit(problems.length ? 1 : 0);
}
