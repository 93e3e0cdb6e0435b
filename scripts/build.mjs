#!/usr/bin/env node
// The build: protobuf code for the plugin, bundled entry points, executables in bin/,
// and the cdktf bindings and docs generated from the provider schema.
// Bundling matters: the engine starts the plugin several times per command, and one file
// with lazily-loaded provider code starts far faster than a tree of node_modules.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const step = (name) => process.stderr.write(`build: ${name}\n`);

// 1. tfplugin6 messages as static protobufjs code (no .proto parsing at plugin start), encode and
// decode only: nothing converts messages to plain objects, and that code was a quarter of the plugin bundle.
step("protobuf");
const protoDir = join(root, "src/plugin/proto");
const genDir = join(protoDir, "gen");
mkdirSync(genDir, { recursive: true });
const protos = readdirSync(protoDir)
  .filter((f) => f.endsWith(".proto"))
  .sort()
  .map((f) => join(protoDir, f));
execFileSync(
  bin("pbjs"),
  [
    "-t",
    "static-module",
    "-w",
    "commonjs",
    "--no-verify",
    "--no-convert",
    "--no-delimited",
    "--no-beautify",
    "--force-number",
    "-o",
    join(genDir, "messages.js"),
    ...protos,
  ],
  { stdio: "inherit" },
);
execFileSync(bin("pbts"), ["-o", join(genDir, "messages.d.ts"), join(genDir, "messages.js")], { stdio: "inherit" });

// 2. Bundles.
step("bundle");
/**
 * zod re-exports every locale it has as a namespace (`z.locales`), which esbuild cannot prune
 * from `z.object(...)`-style use: 360 KB of the 950 KB provider bundle, parsed on every load.
 * Nothing here selects a locale; zod registers English by importing it directly, so the
 * namespace is reduced to that one.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ path, resolveDir }) => {
      const dir = dirname(join(resolveDir, path));
      // Named relative to the checkout: the name lands in the bundle, and the package hash must not depend on where it was built.
      return dir.includes(join("node_modules", "zod")) ? { path: relative(root, dir), namespace: "zod-locales", pluginData: dir } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, ({ pluginData }) => ({
      contents: `export { default as en } from "./en.js";`,
      resolveDir: pluginData,
    }));
  },
};
const common = {
  bundle: true,
  plugins: [zodEnglishOnly],
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: "linked",
  logLevel: "warning",
  // Native addon and engine-only libraries stay outside the bundle.
  external: ["better-sqlite3", "pg", "pg-native"],
};
const snapshotTool = join(mkdtempSync(join(tmpdir(), "mgmt-build-")), "schema-snapshot.js");
// undici and zod were four fifths of dist/provider.js's bytes, and node parses every byte of a
// bundle it loads, while the engines' validation calls (a start of their own per command) load
// the provider and never make a request. So each is a bundle of its own beside it, required only
// by the API client and the contract's schemas, which load on ConfigureProvider (src/provider/config.ts).
const APART = ["undici", "zod"];
// The API client needs undici's Pool and its request(): the package's index also loads fetch,
// WebSocket, the caches, the proxy agents and the mocks, which was two thirds of what a configuring
// start spent loading undici (~180 against ~60 ms of CPU without the code cache, node 20 here).
// These are undici's own modules, the ones its index puts together for the same two names;
// test/plugin/bundles.test.ts proves the bundle answers a request.
const APART_ENTRY = {
  undici: [
    `const Pool = require("undici/lib/dispatcher/pool.js");`,
    `Object.assign(require("undici/lib/dispatcher/dispatcher.js").prototype, { request: require("undici/lib/api/api-request.js") });`,
    `module.exports = { Pool };`,
  ].join("\n"),
  zod: `export * from "zod";`,
};
const apart = {
  name: "apart",
  setup(build) {
    build.onResolve({ filter: new RegExp(`^(${APART.join("|")})$`) }, ({ path }) => ({ path: `./${path}.js`, external: true }));
  },
};
// `mgmt`'s subcommands are bundles of their own beside dist/cli.js, which requires the one it runs:
// node reads and V8 scans every byte of a file it loads, and the server, the report and the
// scaffold together made every `mgmt` command (`mgmt warm`, `mgmt version`) pay ~0.25 s to load
// one 4 MB bundle. The names are src/cli/main.ts's imports; `__dirname` is dist/ for all of them.
const CLI_COMMANDS = ["serve", "schema", "docs", "install-provider", "plan-report", "drift", "policy", "init", "warm"];
const cliCommands = {
  name: "cli-commands",
  setup(build) {
    build.onResolve({ filter: new RegExp(`^\\./(${CLI_COMMANDS.join("|")})$`) }, ({ path, importer }) =>
      importer === join(root, "src/cli/main.ts") ? { path: `./cli-${path.slice(2)}.js`, external: true } : undefined,
    );
  },
};
await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: [join(root, "src/provider/index.ts")],
    outfile: join(root, "dist/provider.js"),
    plugins: [...common.plugins, apart],
  }),
  ...APART.map((name) => esbuild.build({ ...common, stdin: { contents: APART_ENTRY[name], resolveDir: root }, outfile: join(root, `dist/${name}.js`) })),
  esbuild.build({ ...common, entryPoints: [join(root, "src/cli/main.ts")], outfile: join(root, "dist/cli.js"), plugins: [...common.plugins, cliCommands] }),
  esbuild.build({
    ...common,
    entryPoints: Object.fromEntries(CLI_COMMANDS.map((name) => [`cli-${name}`, join(root, "src/cli", name)])),
    outdir: join(root, "dist"),
  }),
  esbuild.build({ ...common, entryPoints: [join(root, "src/harness/start.ts")], outfile: join(root, "dist/start.js") }),
  esbuild.build({
    ...common,
    entryPoints: [join(root, "src/plugin/services.ts")],
    outfile: join(root, "dist/services.js"),
    external: [...common.external, "./calls"],
  }),
  esbuild.build({ ...common, entryPoints: [join(root, "src/plugin/calls.ts")], outfile: join(root, "dist/calls.js") }),
  // `--warm` (src/plugin/warm.ts): only `mgmt warm` starts it, so no engine start reads it.
  esbuild.build({ ...common, entryPoints: [join(root, "src/plugin/warm.ts")], outfile: join(root, "dist/warm.js"), external: [...common.external, "./calls"] }),
  // `--shared-host` (src/plugin/shared-host.ts): started once per engine command, by its first start.
  esbuild.build({
    ...common,
    entryPoints: [join(root, "src/plugin/shared-host.ts")],
    outfile: join(root, "dist/shared-host.js"),
    external: [...common.external, "./calls"],
  }),
  esbuild.build({ ...common, sourcemap: false, entryPoints: [join(root, "src/plugin/schema-snapshot.ts")], outfile: snapshotTool }),
]);
// The plugin answers the engines' first call, GetProviderSchema, with bytes computed here from
// the provider bundle, so that answer never waits for the provider to load (src/plugin/main.ts).
// They are a file of their own, read into a Buffer: inside dist/plugin-main.js they were more than
// half its source, which node reads and V8 scans on every start.
const schemaResponse = execFileSync(process.execPath, [snapshotTool, join(root, "dist/provider.js")], { encoding: "utf8" });
writeFileSync(join(root, "dist/schema-response.bin"), Buffer.from(schemaResponse, "base64"));
rmSync(dirname(snapshotTool), { recursive: true });
// What the plugin runs after its handshake line (src/plugin/services.ts: the router that answers
// the first calls) is dist/services.js, required by serve.ts at run time, and what it runs after
// the first answer (the Provider service, the protobuf messages, the codec) is dist/calls.js,
// required by services.ts: node then reads and compiles only what each step needs, a sixth of the
// code before the line and 10 KB between it and the first answer. The names are the imports as
// written in serve.ts and services.ts; nothing else in the plugin imports them.
await esbuild.build({
  ...common,
  entryPoints: [join(root, "src/plugin/main.ts")],
  outfile: join(root, "dist/plugin-main.js"),
  external: [...common.external, "./services", "./warm", "./shared-host"],
});
// What the launcher runs, dist/plugin.js, is only the loader that runs dist/plugin-main.js from
// V8's code cache (src/plugin/entry.ts): node compiles the file it is given without one.
await esbuild.build({ ...common, entryPoints: [join(root, "src/plugin/entry.ts")], outfile: join(root, "dist/plugin.js") });

// 3. Executables.
step("bin");
mkdirSync(join(root, "bin"), { recursive: true });
/**
 * The plugin's launcher, a shell script: `plugin` is the bundle's path relative to the script's
 * folder. The folder comes from $0 by parameter expansion: `$(dirname "$0")` forked a subshell and
 * dirname, about 7 ms of every start (the engines start the plugin several times per command);
 * only a start through a symlink (npm's node_modules/.bin) pays for readlink. exec, so the
 * engine's signals reach node itself. NODE_EXTRA_CA_CERTS is handed over under another name:
 * node would parse that file and its own roots before running anything, tens of milliseconds
 * of every start, while only the API client needs them (src/provider/extra-ca.ts).
 *
 * No V8 flags: node's built-in modules come compiled in its binary, and V8 rejects that code
 * under any flag, so every start would compile the ~80 the first answer loads (net, tls, crypto,
 * the streams), 20 to 30 ms of CPU. The one flag the plugin wants, --liftoff-only for undici's
 * WebAssembly, is set when undici is loaded (src/plugin/compile-cache.ts, BUNDLE_V8_FLAGS).
 */
const pluginLauncher = (plugin) => `#!/bin/sh
if [ -n "\${NODE_EXTRA_CA_CERTS-}" ]; then
  MGMT_PLUGIN_NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS
  export MGMT_PLUGIN_NODE_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
fi
self=$0
[ -L "$self" ] && self=$(readlink -f "$self")
case $self in */*) dir=\${self%/*} ;; *) dir=. ;; esac
exec node "$dir/${plugin}" "$@"
`;

const writeExecutable = (file, text) => {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
};
writeExecutable(join(root, "bin", "mgmt"), `#!/usr/bin/env node\nrequire("../dist/cli.js");\n`);
writeExecutable(join(root, "bin", "terraform-provider-mgmt"), pluginLauncher("../dist/plugin.js"));

// The same plugin as a local provider mirror (unpacked layout), for engines and tools that
// insist on a version constraint, such as cdktf: dev_overrides cannot satisfy one at init.
const { provider_source: source, version } = JSON.parse(execFileSync(process.execPath, [join(root, "dist/cli.js"), "version"], { encoding: "utf8" }));
const mirror = join(root, "dist", "mirror");
rmSync(mirror, { recursive: true, force: true });
// Self-contained and relative: the bundles sit beside a launcher that finds node on PATH, so
// the package (and the h1: hash engines record in .terraform.lock.hcl) is the same on every
// machine that builds this version. Nothing in it is native, so every platform a POSIX sh
// runs on gets the same bytes, and one build can hash (and lock) them all. Windows has no sh.
const PLATFORMS = ["linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"];
for (const platform of PLATFORMS) {
  const dir = join(mirror, source, version, platform);
  mkdirSync(dir, { recursive: true });
  for (const bundle of [
    "plugin.js",
    "plugin-main.js",
    "services.js",
    "calls.js",
    "warm.js",
    "shared-host.js",
    "provider.js",
    ...APART.map((name) => `${name}.js`),
    "schema-response.bin",
  ])
    copyFileSync(join(root, "dist", bundle), join(dir, bundle));
  writeExecutable(join(dir, "terraform-provider-mgmt"), pluginLauncher("plugin.js"));
}

// `--mirror-only` stops here: the provider package is all that tests of the package need.
if (process.argv.includes("--mirror-only")) process.exit(0);

// 4. Provider schema -> cdktf bindings and docs.
step("bindings");
execFileSync(process.execPath, [join(root, "scripts/generate-bindings.mjs")], { stdio: "inherit", env: { ...process.env, CHECKPOINT_DISABLE: "1" } });

// 5. The cdktf and cdktn bindings as npm package folders (dist/cdktf-bindings, dist/cdktn-bindings), the way prebuilt providers ship.
step("bindings packages");
const { packageBindings } = await import("./package-bindings.mjs");
await Promise.all(["cdktf", "cdktn"].map((cdk) => packageBindings(root, { source, version }, cdk)));

// 6. The npm packages as tarballs in dist/packages, as `npm publish` would upload them.
step("npm packages");
const { packProvider } = await import("./package-npm.mjs");
await packProvider(root, { source, version, external: common.external });
