#!/usr/bin/env node
// Runs a TypeScript program (a cdktf app, a benchmark): esbuild bundles it with local code such as the generated bindings
// (packages such as cdktf stay external and load from node_modules), then node runs it. The bundle is deleted after the
// run; one left by a run that was killed is deleted by the next run.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write("usage: run-ts.mjs <program.ts> [args]\n");
  process.exit(2);
}
// Inside the repository, so the external packages resolve from its node_modules.
const outdir = join(dirname(fileURLToPath(import.meta.url)), "..", ".tmp");
mkdirSync(outdir, { recursive: true });
const outfile = join(outdir, `app-${process.pid}.cjs`);
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
};
for (const name of readdirSync(outdir)) {
  const pid = /^app-(\d+)\.cjs$/.exec(name)?.[1];
  if (pid !== undefined && !alive(Number(pid))) rmSync(join(outdir, name), { force: true });
}
await esbuild.build({
  entryPoints: [entry],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  packages: "external",
  outfile,
  logLevel: "warning",
});
let run;
try {
  run = spawnSync(process.execPath, [outfile, ...args], { stdio: "inherit", env: { ...process.env, CHECKPOINT_DISABLE: "1" } });
} finally {
  rmSync(outfile, { force: true });
}
process.exit(run.status ?? 1);
