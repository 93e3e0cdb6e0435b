/**
 * What `npm run synth | plan | deploy | destroy | output` run in a new repository (tools/stack.js), and the
 * loader it synthesizes with (tools/transpile.js). A no-op plan should cost about what the engine's own
 * plan does: the CDK's CLI spends seconds starting and ts-node seconds type-checking main.ts on every
 * synth (the type check is `npm test`'s and CI's job, `npm run typecheck`, done once). So main.ts runs
 * on node with esbuild stripping its types (a transform of one file in milliseconds, no type
 * information needed; swc would do the same with a larger native package, and esbuild is what this
 * project builds with), `init` runs only when what it depends on changed, and the engine attaches to
 * one warm provider (`mgmt warm`) instead of starting it several times per command.
 */
import type { ScaffoldContext } from "./context";

export const STACK_RUNNER = "tools/stack.js";
export const TRANSPILE_HOOK = "tools/transpile.js";

/** The synth step: main.ts on node, its types stripped (tools/transpile.js). */
export const fastSynth = `node ${STACK_RUNNER} synth`;

export function transpileHook(): string {
  return `/**
 * Written by \`mgmt init\`. TypeScript on node without a type check: \`node ${TRANSPILE_HOOK} main.ts\` (what
 * \`npm run synth\` does) runs main.ts, and so does \`node -r ./${TRANSPILE_HOOK} main.ts\`. esbuild strips the
 * types of each .ts file as it is required; the types are checked by \`npm run typecheck\` (tools/typecheck.js),
 * which \`npm test\` and CI run. Also a jest transformer (its \`process\`).
 */
"use strict";
const { readFileSync } = require("node:fs");
const { resolve } = require("node:path");
const { transformSync } = require("esbuild");

// Stack traces name main.ts's own lines.
process.setSourceMapsEnabled(true);

function compile(source, filename) {
  return transformSync(source, { loader: "ts", format: "cjs", target: "node20", sourcemap: "inline", sourcefile: filename }).code;
}

require.extensions[".ts"] = (module, filename) => module._compile(compile(readFileSync(filename, "utf8"), filename), filename);

module.exports = { process: (source, filename) => ({ code: compile(source, filename) }) };

if (require.main === module) {
  // The synth refused by the CDK (an error annotation: the account's rules at synth, each finding already one
  // line above) says so in its message; a stack trace into the CDK's code would only bury it. Any other error
  // keeps its stack: it points into main.ts.
  process.on("uncaughtException", (error) => {
    const refused = error instanceof Error && error.message.startsWith("Encountered Annotations with level");
    process.stderr.write(\`\${refused ? error.message : (error && error.stack) || String(error)}\\n\`);
    process.exit(1);
  });
  // main.ts as node's main module (its \`require.main === module\` holds), as ts-node runs it.
  process.argv.splice(1, 2, resolve(process.argv[2]));
  require("node:module").runMain();
}
`;
}

export function stackRunner(c: ScaffoldContext): string {
  const stackDir = `cdktf.out/stacks/${c.stack}`;
  return `#!/usr/bin/env node
/**
 * Written by \`mgmt init\`: npm run synth | plan | deploy | destroy | output. Synthesizes main.ts (node,
 * types stripped by ${TRANSPILE_HOOK}; npm test and CI check them), runs \`${c.engine} init\` in
 * ${stackDir} only when the providers, modules or backend it declares changed since the last
 * init (or the backend's PG_CONN_STR did), then the engine there, attached to one warm provider
 * (\`mgmt warm\`). Arguments after the command go to the engine: npm run destroy -- -auto-approve.
 * \`npx ${c.cdk ?? "cdktf"} deploy\` typed by hand does the same steps through the CDK's CLI.
 */
"use strict";
const { spawn } = require("node:child_process");
const { createHash } = require("node:crypto");
const { existsSync, readFileSync, writeFileSync } = require("node:fs");
const { constants } = require("node:os");
const { join, resolve } = require("node:path");
const { isatty } = require("node:tty");

const ENGINE = ${JSON.stringify(c.engine)};
const root = join(__dirname, "..");
const stackDir = join(root, ${JSON.stringify(stackDir)});
const ENGINE_ARGS = {
  plan: ["plan", "-input=false"],
  deploy: ["apply", "-input=false", "-auto-approve"],
  // Asks before it destroys; npm run destroy -- -auto-approve does not.
  destroy: ["destroy", "-input=false"],
  output: ["output"],
};

/**
 * Runs a command to its end: its exit status (128 + N for signal N, as a shell gives). Ctrl-C or SIGTERM
 * meanwhile never ends this script before the command: the engine's graceful stop finishes the writes it
 * sent and records them, and npm must not give the terminal back (or close it) while it does. A terminal's
 * Ctrl-C reaches the whole process group, the command included, so it is not passed on (a second one
 * would make the engine's stop an immediate one); any other signal is.
 */
function run(command, args, cwd, stdio = "inherit") {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio });
    const forward = (signal) => {
      if (signal === "SIGINT" && isatty(0)) return;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const settle = () => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
    };
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.once("error", (error) => {
      settle();
      fail(error);
    });
    child.once("exit", (code, signal) => {
      settle();
      done(signal === null ? (code ?? 1) : 128 + (constants.signals[signal] ?? 0));
    });
  });
}

const synth = () => run(process.execPath, [join(__dirname, "transpile.js"), "main.ts"], root);

/** What \`init\` depends on: the engine, the terraform block (providers, backend), the modules' sources, the backend's connection (hashed, never stored). */
function initKey() {
  const config = JSON.parse(readFileSync(join(stackDir, "cdk.tf.json"), "utf8"));
  const modules = Object.entries(config.module ?? {}).map(([name, m]) => [name, m.source, m.version]);
  return createHash("sha256")
    .update(JSON.stringify([ENGINE, config.terraform ?? {}, modules, process.env.PG_CONN_STR ?? ""]))
    .digest("hex");
}

/** \`init\` unless the last one, in this data folder, was for the same key and left its lock file. */
async function initIfChanged() {
  const stamp = resolve(stackDir, process.env.TF_DATA_DIR ?? ".terraform", "mgmt-init.sha256");
  const key = initKey();
  if (existsSync(join(stackDir, ".terraform.lock.hcl")) && existsSync(stamp) && readFileSync(stamp, "utf8") === key) return 0;
  const code = await run(ENGINE, ["init", "-input=false", "-no-color"], stackDir, ["inherit", "ignore", "inherit"]);
  if (code === 0) writeFileSync(stamp, key);
  return code;
}

async function main([command, ...args]) {
  if (command === "synth") return synth();
  if (!(command in ENGINE_ARGS)) {
    process.stderr.write("usage: node ${STACK_RUNNER} synth|plan|deploy|destroy|output [ENGINE ARGUMENTS]\\n");
    return 2;
  }
  const synthesized = await synth();
  if (synthesized !== 0) return synthesized;
  const initialized = await initIfChanged();
  if (initialized !== 0) return initialized;
  // Colour for a person at a terminal; plain text for a pipe, a log or a test reading it.
  const engineArgs = [...ENGINE_ARGS[command], ...(process.stdout.isTTY ? [] : ["-no-color"]), ...args];
  // output reads the state only: no provider to warm.
  return command === "output" ? run(ENGINE, engineArgs, stackDir) : run("mgmt", ["warm", "--", ENGINE, ...engineArgs], stackDir);
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
`;
}
