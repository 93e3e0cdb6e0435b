/**
 * A cdktf app outside the repository, as a team's project has it: package.json, cdktf's tsconfig and
 * node_modules holding the built bindings package, cdktf, constructs and node's types (linked, no
 * install); compiled by tsc and synthesized by running it, against the engine under test.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { engineEnvironment, writeCliConfig, type Engine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { runProcess } from "../../src/harness/process";

export const BINDINGS = "@mgmt/cdktf-provider-mgmt";

/** cdktf's project template settings. */
const TSCONFIG = {
  compilerOptions: {
    target: "ES2020",
    module: "CommonJS",
    strict: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noImplicitReturns: true,
    skipLibCheck: true,
  },
  include: ["*.ts"],
};

/** The folder `work/name` as an install leaves a project: package.json, tsconfig.json and node_modules. */
export function cdktfProject(work: string, name: string): string {
  const dir = join(work, name);
  for (const scope of ["@mgmt", "@types"]) mkdirSync(join(dir, "node_modules", scope), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", private: true }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
  symlinkSync(repoPath("dist/cdktf-bindings"), join(dir, "node_modules", BINDINGS));
  for (const p of ["cdktf", "constructs", "@types/node"]) symlinkSync(repoPath("node_modules", p), join(dir, "node_modules", p));
  return dir;
}

/** The environment an app and its engine run in: the provider from the mirror in `work`, the API at `url`. */
export function cdktfEnvironment(engine: Engine, work: string, url: string, token: string): NodeJS.ProcessEnv {
  return {
    ...engineEnvironment({ cliConfig: writeCliConfig(work, "mirror"), url, token }),
    // cdktf checks the engine's version for import blocks at synth: the engine under test.
    PATH: `${dirname(engine.binary)}${delimiter}${process.env.PATH ?? ""}`,
    TERRAFORM_BINARY_NAME: engine.name === "tofu" ? "tofu" : "terraform",
  };
}

/** tsc (which must pass), then the app with its state file at `state`: the synth's exit code and stderr, and the stack's folder. */
export async function synthApp(dir: string, env: NodeJS.ProcessEnv, state: string, stack: string) {
  const tsc = await runProcess(process.execPath, [repoPath("node_modules/typescript/bin/tsc"), "-p", dir], { cwd: dir });
  if (tsc.code !== 0) throw new Error(`tsc failed\n${tsc.stdout}`);
  const r = await runProcess(process.execPath, [join(dir, "main.js")], {
    cwd: dir,
    env: { ...env, CDKTF_OUTDIR: join(dir, "cdktf.out"), STATE_FILE: state, CHECKPOINT_DISABLE: "1" },
  });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, stackDir: join(dir, "cdktf.out", "stacks", stack) };
}
