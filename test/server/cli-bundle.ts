/**
 * The `mgmt` CLI bundled into one file (the build makes each subcommand a file of its own), for
 * tests that start `mgmt serve` as its own process, the way users run it. Built from source so a test run
 * does not depend on a prior `npm run build`.
 */
import { join } from "node:path";
import { build } from "esbuild";

const ROOT = join(__dirname, "..", "..");

/** Writes the bundle into `dir` and answers its path; run it with `NODE_PATH` at the repo's node_modules. */
export async function bundleCli(dir: string): Promise<string> {
  const outfile = join(dir, "mgmt.js");
  await build({
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    external: ["better-sqlite3", "pg", "pg-native"],
    entryPoints: [join(ROOT, "src/cli/main.ts")],
    outfile,
    logLevel: "silent",
  });
  return outfile;
}
