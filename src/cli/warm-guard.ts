/**
 * What keeps an engine command under `mgmt warm` from acting as someone else. The provider it
 * attaches to was configured from mgmt warm's environment, so a command run with another MGMT_URL
 * or MGMT_TOKEN (`MGMT_TOKEN=B tofu apply` under a warm started with token A) would silently act
 * with A. The engines pass their environment to no provider they attach to; only a process the
 * command itself starts sees it. So mgmt warm puts `tofu` and `terraform` first on CMD's PATH, in a
 * private folder: each compares the command's settings with the ones the provider started with
 * (the token by its SHA-256, never the token) and refuses, or runs the next engine of that name.
 * The scaffold's own `tofu` (node_modules/.bin, ahead of PATH in npm scripts and npx) asks the same
 * check through MGMT_WARM_GUARD.
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/** The engines' command names the guard stands in for on PATH. */
export const GUARDED_ENGINES = ["tofu", "terraform"] as const;

/** The check itself, run by node: `guard.js NAME ARGS...` (found on PATH) or `guard.js --exec FILE ARGS...`. */
const GUARD_JS = `"use strict";
const { spawn } = require("node:child_process");
const { createHash } = require("node:crypto");
const { accessSync, constants } = require("node:fs");
const { signals } = require("node:os").constants;
const { delimiter, join } = require("node:path");
const [how, ...rest] = process.argv.slice(2);
const env = process.env;
const name = how === "--exec" ? rest[0].split("/").pop() : how;
const differs = [];
if ((env.MGMT_URL || "") !== (env.MGMT_WARM_URL || "")) differs.push("MGMT_URL is " + (env.MGMT_URL || "unset") + ", the provider's " + (env.MGMT_WARM_URL || "unset"));
if (createHash("sha256").update(env.MGMT_TOKEN || "").digest("hex") !== env.MGMT_WARM_TOKEN_SHA256) differs.push("MGMT_TOKEN is not the provider's");
if (differs.length > 0) {
  process.stderr.write("mgmt warm: refusing to run " + name + ": its " + differs.join("; its ") + ". The provider it would attach to was started by mgmt warm and acts with mgmt warm's settings, not the command's. Run the command outside mgmt warm, or start mgmt warm with the same MGMT_URL and MGMT_TOKEN.\\n");
  process.exit(1);
}
const executable = (file) => { try { accessSync(file, constants.X_OK); return true; } catch { return false; } };
const target = how === "--exec" ? rest[0] : (env.PATH || "").split(delimiter).filter((d) => d && d !== __dirname).map((d) => join(d, how)).find(executable);
if (!target) { process.stderr.write("mgmt warm: no " + name + " on PATH\\n"); process.exit(127); }
const child = spawn(target, how === "--exec" ? rest.slice(1) : rest, { stdio: "inherit" });
// A terminal's Ctrl-C reaches the engine itself (one process group); other signals are passed on.
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => { if (s !== "SIGINT") child.kill(s); });
child.on("error", (e) => { process.stderr.write("mgmt warm: cannot run " + target + ": " + e.message + "\\n"); process.exit(126); });
child.on("exit", (code, signal) => process.exit(signal ? 128 + (signals[signal] || 0) : code === null ? 1 : code));
`;

export interface Guard {
  /** What CMD's environment gets on top of mgmt warm's own. */
  readonly env: NodeJS.ProcessEnv;
  remove(): void;
}

/** Writes the guard into a private folder and says how CMD runs with it first on PATH. */
export function writeGuard(started: NodeJS.ProcessEnv): Guard {
  const dir = mkdtempSync(join(tmpdir(), "mgmt-warm-guard-"));
  const script = join(dir, "guard.js");
  writeFileSync(script, GUARD_JS);
  const node = JSON.stringify(process.execPath);
  const launcher = (args: string) => `#!/bin/sh\nexec ${node} ${JSON.stringify(script)} ${args} "$@"\n`;
  for (const engine of GUARDED_ENGINES) writeFileSync(join(dir, engine), launcher(engine));
  writeFileSync(join(dir, "guard"), launcher("--exec"));
  for (const file of [...GUARDED_ENGINES, "guard"]) chmodSync(join(dir, file), 0o755);
  return {
    env: {
      PATH: `${dir}${delimiter}${started.PATH ?? ""}`,
      MGMT_WARM_GUARD: join(dir, "guard"),
      MGMT_WARM_URL: started.MGMT_URL ?? "",
      MGMT_WARM_TOKEN_SHA256: createHash("sha256")
        .update(started.MGMT_TOKEN ?? "")
        .digest("hex"),
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
