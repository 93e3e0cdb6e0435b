/**
 * tools/cdktn.sh in a --cdk cdktn repository: what `npm run synth|plan|deploy|destroy|output` runs.
 * On Node 22 and later, CDK Terrain's own CLI, told to run main.ts as the other path does (types stripped by
 * tools/transpile.js, not checked: cdktf.json's \`npx ts-node main.ts\` would type-check it on every command,
 * a second time after CI's type check, and take seconds doing so); on an older Node, which cdktn-cli does not run on,
 * the same steps without it (tools/stack.js: main.ts on node, then the engine in the stack's folder), after
 * one line that says so. A script file rather than package.json text: npm appends the arguments
 * after `--` to the command line, and they must reach cdktn or the engine on either path.
 */
import { CDKTN_NODE_MAJOR } from "./versions";
import { STACK_RUNNER, TRANSPILE_HOOK } from "./stack-runner";
import type { ScaffoldContext } from "./context";

/** The script's path in the repository; package.json runs it with sh. */
export const CDKTN_SCRIPT = "tools/cdktn.sh";

/** The npm scripts it serves, each a word the script takes first. */
export const CDKTN_COMMANDS = ["synth", "plan", "deploy", "destroy", "output"] as const;
export type CdktnCommand = (typeof CDKTN_COMMANDS)[number];

export function cdktnScript(c: ScaffoldContext): string {
  const stackDir = `cdktf.out/stacks/${c.stack}`;
  const engine = c.engine;
  return `#!/bin/sh
# npm run synth | plan | deploy | destroy | output (package.json): CDK Terrain's CLI, cdktn, on Node
# ${CDKTN_NODE_MAJOR} and later, where cdktn-cli runs. On an older Node the same steps without it: main.ts run
# on node (it writes ${stackDir}), then ${engine} in that folder, as cdktn would run it (${STACK_RUNNER}).
# Arguments after the command go to cdktn, or to ${engine}: npm run destroy -- -auto-approve.
set -e
command=$1
[ $# -gt 0 ] && shift
stack=${stackDir}

if node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= ${CDKTN_NODE_MAJOR} ? 0 : 1)'; then
  # After init, cdktn locks the provider for linux_amd64 (providers lock), which by default asks the
  # provider's registry for it; it is in none. The lock reads the mirror the provider package carries.
  TF_CLI_ARGS_providers_lock="-fs-mirror=$(mgmt install-provider --print-mirror)"
  export TF_CLI_ARGS_providers_lock
  # main.ts with its types stripped, not checked (npm test and CI's plan job check them, once): cdktf.json's
  # app, ts-node, would type-check it on every command. npx cdktn ... typed by hand still runs that app.
  app="node ${TRANSPILE_HOOK} main.ts"
  case "$command" in
    synth) exec cdktn synth --app "$app" "$@" ;;
    plan) exec cdktn diff --app "$app" "$@" ;;
    deploy) exec cdktn deploy --app "$app" --auto-approve "$@" ;;
    # Asks before it destroys; npm run destroy -- --auto-approve does not.
    destroy) exec cdktn destroy --app "$app" "$@" ;;
    output) exec cdktn output --app "$app" "$@" ;;
  esac
else
  echo "cdktn commands need Node ${CDKTN_NODE_MAJOR} (this is Node $(node -v)): running main.ts on node and ${engine} in $stack instead" >&2
  case "$command" in
    synth | plan | deploy | destroy | output) exec node ${STACK_RUNNER} "$command" "$@" ;;
  esac
fi
echo "usage: sh ${CDKTN_SCRIPT} ${CDKTN_COMMANDS.join("|")} [ARGUMENTS]" >&2
exit 2
`;
}
