/**
 * The type check of a new repository (tools/typecheck.js), which `npm run typecheck`, CI's plan jobs and
 * `npm test` run: what it leaves out, and why it checks everything after an install, is the file's own
 * comment below, for the team that reads it there.
 */

export const TYPECHECK = "tools/typecheck.js";

export function typecheckScript(): string {
  return `/**
 * Written by \`mgmt init\`: the type check (\`npm run typecheck\`; CI's plan job and \`npm test\` run it too),
 * with the compiler's messages. \`tsc -b\` checks only when a file of the project changed since the last
 * check that passed (its record: tsconfig.tsbuildinfo), and a check that failed is made again. It does not
 * look at the packages' types, so after an install (node_modules/.package-lock.json newer than the record)
 * every file is checked (\`--force\`), and the record then dated after the install.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const { statSync, utimesSync } = require("node:fs");
const { join } = require("node:path");

const root = join(__dirname, "..");
const record = join(root, "tsconfig.tsbuildinfo");
const modified = (file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs;

const checked = modified(record);
const installed = Math.max(modified(join(root, "node_modules", ".package-lock.json")) ?? 0, modified(join(root, "package-lock.json")) ?? 0);
const force = checked === undefined || installed >= checked;
const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-b", ...(force ? ["--force"] : [])], { cwd: root, stdio: "inherit" });
// tsc leaves its record as it was when nothing in it changed: dated just after the install it checked, so
// that the next check is left out again while a file edited since is still newer.
if (tsc.status === 0 && force && (modified(record) ?? Infinity) <= installed) utimesSync(record, new Date(installed + 1), new Date(installed + 1));
process.exitCode = tsc.status ?? 1;
`;
}
