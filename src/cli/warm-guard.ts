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

/**
 * The check itself, a POSIX shell script: `guard NAME ARGS...` (the next engine of that name on PATH: the
 * launchers named tofu and terraform) or `guard FILE ARGS...` (an engine by its path: MGMT_WARM_GUARD). It
 * runs before every engine command under mgmt warm, so it starts no node of its own: the token's SHA-256
 * comes from sha256sum or shasum (node only where neither exists), and the engine replaces it (exec), so
 * every signal reaches the engine as if it had been started directly.
 * `@NODE@` stands for this node's path.
 */
const GUARD_SH = `#!/bin/sh
# Written by mgmt warm: runs an engine command only if its MGMT_URL and MGMT_TOKEN are the provider's.
here=\${0%/*}
case $1 in */*) target=$1 ;; *) target= ;; esac
name=\${1##*/}
shift
digest() {
  if command -v sha256sum >/dev/null 2>&1; then printf %s "\${MGMT_TOKEN-}" | sha256sum
  elif command -v shasum >/dev/null 2>&1; then printf %s "\${MGMT_TOKEN-}" | shasum -a 256
  else @NODE@ -e 'process.stdout.write(require("node:crypto").createHash("sha256").update(process.env.MGMT_TOKEN || "").digest("hex"))'
  fi
}
sum=$(digest) || { echo "mgmt warm: cannot hash MGMT_TOKEN to compare it with the provider's" >&2; exit 1; }
differs=
if [ "\${MGMT_URL-}" != "\${MGMT_WARM_URL-}" ]; then differs="its MGMT_URL is \${MGMT_URL:-unset}, the provider's \${MGMT_WARM_URL:-unset}"; fi
if [ "\${sum%% *}" != "\${MGMT_WARM_TOKEN_SHA256-}" ]; then differs="\${differs:+$differs; }its MGMT_TOKEN is not the provider's"; fi
if [ -n "$differs" ]; then
  printf '%s\\n' "mgmt warm: refusing to run $name: $differs. The provider it would attach to was started by mgmt warm and acts with mgmt warm's settings, not the command's. Run the command outside mgmt warm, or start mgmt warm with the same MGMT_URL and MGMT_TOKEN." >&2
  exit 1
fi
if [ -z "$target" ]; then
  set -f
  IFS=:
  for dir in $PATH; do
    if [ -n "$dir" ] && [ "$dir" != "$here" ] && [ -f "$dir/$name" ] && [ -x "$dir/$name" ]; then target=$dir/$name; break; fi
  done
  unset IFS
  if [ -z "$target" ]; then printf '%s\\n' "mgmt warm: no $name on PATH" >&2; exit 127; fi
fi
exec "$target" "$@"
`;

export interface Guard {
  /** What CMD's environment gets on top of mgmt warm's own. */
  readonly env: NodeJS.ProcessEnv;
  remove(): void;
}

/** Writes the guard into a private folder and says how CMD runs with it first on PATH. */
export function writeGuard(started: NodeJS.ProcessEnv): Guard {
  const dir = mkdtempSync(join(tmpdir(), "mgmt-warm-guard-"));
  const guard = GUARD_SH.replace("@NODE@", JSON.stringify(process.execPath));
  const launcher = (args: string) => `#!/bin/sh\nexec ${JSON.stringify(join(dir, "guard"))} ${args} "$@"\n`;
  writeFileSync(join(dir, "guard"), guard);
  for (const engine of GUARDED_ENGINES) writeFileSync(join(dir, engine), launcher(engine));
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
