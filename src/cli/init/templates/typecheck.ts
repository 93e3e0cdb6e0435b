/**
 * The type check of a new repository (tools/typecheck.js): what `npm run typecheck` runs, CI's plan jobs
 * before their synth, and `npm test` beside its tests. tsc's build mode (`-b`) leaves a check out when no
 * file of the project changed since the last one passed (tsconfig.tsbuildinfo, with `incremental` on):
 * about 0.2 s instead of a 1.2 s check that takes a core from the tests beside it. Its up-to-date test
 * looks only at the project's own files, not at the packages' types, so after an install (npm writes
 * node_modules/.package-lock.json on each) everything is checked again.
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
