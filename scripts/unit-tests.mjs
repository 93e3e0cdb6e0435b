#!/usr/bin/env node
// `npm run test:unit`: the inner loop. Every test file of the default jest project that declares `/** @tier unit */`
// on its first line (scripts/test-tiers.mjs: such a file starts no engine, database server, npm or mgmt process,
// which `npm run lint` checks); the whole suite (`npm test`) runs them again with the rest. `--list` prints each
// file's tier instead of running them.
import { spawnSync } from "node:child_process";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { declaredTier, testFiles } from "./test-tiers.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

const tests = testFiles(ROOT);
const unit = tests.filter((f) => declaredTier(f) === "unit");

if (process.argv.includes("--list")) {
  for (const f of tests) process.stdout.write(`${(declaredTier(f) ?? "-").padEnd(8)} ${relative(ROOT, f)}\n`);
  process.exit(0);
}
const jest = spawnSync(
  process.execPath,
  [join(ROOT, "node_modules", "jest", "bin", "jest.js"), "--selectProjects", "default", "--runTestsByPath", ...unit, ...process.argv.slice(2)],
  {
    cwd: ROOT,
    stdio: "inherit",
  },
);
process.exit(jest.status ?? 1);
