/**
 * The main job (`npm start`): the basic example stack synthesized, planned and applied by a
 * real engine against a fresh embedded `mgmt serve`, then planned again to show no changes.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "./engine";
import { repoPath } from "./paths";
import { startServe } from "./serve";

const say = (text: string) => process.stdout.write(`\n== ${text}\n`);

async function main(): Promise<number> {
  const wanted = process.env.MGMT_ENGINE ?? "tofu";
  const engine: Engine | undefined = availableEngines().find((e) => e.name === wanted);
  if (!engine) {
    process.stderr.write(`start: engine '${wanted}' is not available (MGMT_ENGINE is tofu or terraform)\n`);
    return 2;
  }
  const work = mkdtempSync(join(tmpdir(), "mgmt-start-"));
  const outdir = join(work, "cdktf.out");

  say("starting the local Management API (mgmt serve)");
  const server = await startServe();
  process.stdout.write(`listening at ${server.url}\n`);
  try {
    say("synthesizing examples/basic");
    // cdktf's local backend keeps state in the synthesizing process's working directory.
    const synth = spawnSync(process.execPath, [repoPath("scripts/run-ts.mjs"), repoPath("examples/basic/main.ts")], {
      cwd: work,
      stdio: "inherit",
      env: { ...process.env, CDKTF_OUTDIR: outdir, CHECKPOINT_DISABLE: "1" },
    });
    if (synth.status !== 0) return synth.status ?? 1;

    const stackDir = join(outdir, "stacks", "basic");
    // The synthesized stack pins a version, which only a mirror (not dev_overrides) satisfies at init.
    const env = engineEnvironment({ cliConfig: writeCliConfig(work, "mirror"), url: server.url, token: server.token });
    const steps: [string, string[], (code: number | null) => boolean][] = [
      ["init", ["init", "-no-color"], (c) => c === 0],
      ["plan", ["plan", "-no-color"], (c) => c === 0],
      ["apply", ["apply", "-no-color", "-auto-approve"], (c) => c === 0],
      // -detailed-exitcode: 0 means the live account matches the code exactly.
      ["re-plan (expecting no changes)", ["plan", "-no-color", "-detailed-exitcode"], (c) => c === 0],
    ];
    for (const [title, args, ok] of steps) {
      say(`${engine.name} ${title}`);
      const result = await runEngine(engine, args, stackDir, env);
      process.stdout.write(result.stdout);
      process.stderr.write(result.stderr);
      if (!ok(result.code)) {
        process.stderr.write(`start: ${engine.name} ${args[0]} failed (exit ${result.code})\n`);
        return 1;
      }
    }
    say("done: the example stack is applied and a fresh plan shows no changes");
    const show = await runEngine(engine, ["show", "-json"], stackDir, env);
    const resources =
      (JSON.parse(show.stdout) as { values?: { root_module?: { resources?: { address: string; mode: string; values: { id?: string } }[] } } }).values
        ?.root_module?.resources ?? [];
    process.stdout.write("\nWhat it created (address: id):\n");
    for (const r of resources.filter((x) => x.mode === "managed")) process.stdout.write(`  ${r.address}: ${r.values.id ?? "?"}\n`);
    process.stdout.write(
      [
        "",
        `The stack's folder (state, synthesized JSON): ${stackDir}`,
        `The API at ${server.url} was a temporary mgmt serve on an in-memory store; it stops now, and what it held goes with it.`,
        "",
        "Next:",
        "  bin/mgmt serve --port 8080            # a server that keeps running (prints its URL and a token)",
        "  export MGMT_URL=http://127.0.0.1:8080/v4 MGMT_TOKEN=<the printed token>",
        "  npx cdktf deploy --skip-provider-lock  # this stack (examples/basic, the app cdktf.json names) against it",
        "                                         # with OpenTofu: docs/guides/cdktf.md, step 4 (Deploy)",
        "  docs/index.md, docs/resources/        # the provider and every resource and data source, with examples",
        "",
      ].join("\n"),
    );
    return 0;
  } finally {
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
