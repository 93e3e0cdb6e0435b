// The three npm packages, as tarballs in dist/packages that `npm install` takes and `npm publish`
// would upload as they are:
// - @mgmt/provider (staged in dist/provider-package): the `mgmt` command and the provider package
//   as a filesystem mirror (dist/mirror, every platform the build lays out), which
//   `mgmt install-provider` finds beside the command's bundle; and the two bindings tarballs in
//   dist/packages, which `mgmt init` vendors into a new repository, so that the provider tarball
//   alone scaffolds one (`npx --package ./mgmt-provider-X.tgz mgmt init DIR`);
// - @mgmt/cdktf-provider-mgmt and @mgmt/cdktn-provider-mgmt: the bindings folders package-bindings.mjs
//   wrote (dist/cdktf-bindings, dist/cdktn-bindings).
// The provider package's contents follow from what dist/cli.js reads at run time, not from a list
// of files: its own bundle, the folders it finds beside itself (mirror/ for install-provider,
// ../examples for docs, a templates/ folder when one exists) and the modules the bundle leaves
// external, which become its dependencies at the versions the root package.json asks for, save
// better-sqlite3: its addon compiles when it installs (minutes without a prebuilt one), and only
// `mgmt serve` loads it, so it is an optional peer, which npm does not install by itself.
import { execFile } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

export const PROVIDER_PACKAGE = "@mgmt/provider";

/** The examples/ folders `mgmt docs` reads: one per kind of reference page (src/provider/docs.ts). */
const DOC_EXAMPLES = ["provider", "resources", "data-sources", "ephemeral-resources", "functions"];

/** npm pack's file name for a package: the scope's @ dropped and its / made a dash. */
export const tarballName = (name, version) => `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;

/** Externals only `mgmt serve` loads (lazily, naming the package when missing): optional peers, not dependencies. */
const OPTIONAL_PEERS = ["better-sqlite3"];

function stageProviderPackage(root, { source, version, external, carried }) {
  const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const out = join(root, "dist", "provider-package");
  const staging = `${out}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(staging, "dist"), { recursive: true });
  mkdirSync(join(staging, "bin"));

  // Source maps stay behind: they are twice the bundle and only a debugger reads them.
  for (const bundle of readdirSync(join(root, "dist")).filter((name) => /^cli(-[a-z-]+)?\.js$/.test(name))) {
    copyFileSync(join(root, "dist", bundle), join(staging, "dist", bundle));
  }
  cpSync(join(root, "dist", "mirror"), join(staging, "dist", "mirror"), { recursive: true });
  for (const kind of DOC_EXAMPLES) {
    if (existsSync(join(root, "examples", kind))) cpSync(join(root, "examples", kind), join(staging, "examples", kind), { recursive: true });
  }
  for (const templates of ["templates", join("dist", "templates")]) {
    if (existsSync(join(root, templates))) cpSync(join(root, templates), join(staging, templates), { recursive: true });
  }
  // The bindings tarballs, where `mgmt init` looks by default: the packages folder beside its bundle.
  mkdirSync(join(staging, "dist", "packages"));
  for (const tarball of carried) copyFileSync(tarball, join(staging, "dist", "packages", tarball.slice(tarball.lastIndexOf("/") + 1)));
  writeFileSync(join(staging, "bin", "mgmt"), `#!/usr/bin/env node\nrequire("../dist/cli.js");\n`);
  chmodSync(join(staging, "bin", "mgmt"), 0o755);

  // What the bundle requires but does not hold. An external that the root package does not
  // depend on (pg-native) is one the code only tries, and stays out.
  const needed = external.filter((name) => rootManifest.dependencies[name] !== undefined).sort();
  const dependencies = Object.fromEntries(needed.filter((name) => !OPTIONAL_PEERS.includes(name)).map((name) => [name, rootManifest.dependencies[name]]));
  const peers = needed.filter((name) => OPTIONAL_PEERS.includes(name));
  const platforms = readdirSync(join(root, "dist", "mirror", source, version)).sort();
  const manifest = {
    name: PROVIDER_PACKAGE,
    version,
    description: `The mgmt command (local Management API, plan-report, drift, install-provider) and the Terraform/OpenTofu provider ${source} for ${platforms.join(", ")}`,
    license: rootManifest.license,
    keywords: ["terraform", "opentofu", "provider", "mgmt"],
    engines: rootManifest.engines,
    bin: { mgmt: "bin/mgmt" },
    // What `npm publish` uploads, whatever else a staging folder holds; the package is public on any
    // registry it is published to (scoped packages are restricted by default on npmjs.com).
    files: [
      "bin/",
      "dist/",
      ...DOC_EXAMPLES.filter((kind) => existsSync(join(staging, "examples", kind))).map((kind) => `examples/${kind}/`),
      ...(existsSync(join(staging, "templates")) ? ["templates/"] : []),
    ],
    publishConfig: { access: "public" },
    dependencies,
    peerDependencies: Object.fromEntries(peers.map((name) => [name, rootManifest.dependencies[name]])),
    peerDependenciesMeta: Object.fromEntries(peers.map((name) => [name, { optional: true }])),
  };
  writeFileSync(join(staging, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(staging, "README.md"),
    `# ${PROVIDER_PACKAGE}

The \`mgmt\` command and the Terraform/OpenTofu provider \`${source}\` ${version}, laid out as a
filesystem mirror for ${platforms.join(", ")}. The provider runs on node (found on PATH).
\`mgmt serve\` keeps its data in SQLite through better-sqlite3, an optional peer: install it
beside this package to run the local API (no other command needs it).

\`\`\`sh
npx --yes --package ./${tarballName(PROVIDER_PACKAGE, version)} mgmt init ../infra   # a team's repository, from this tarball alone
npm install --save-dev /path/to/${tarballName(PROVIDER_PACKAGE, version)} better-sqlite3
npx mgmt install-provider            # into ~/.terraform.d/plugins, searched by both engines
npx mgmt install-provider --print-mirror   # or: the mirror's path inside this package
npx mgmt serve --ephemeral -- tofu plan    # a throwaway local API for one command
\`\`\`

The repository's docs/guides/install.md has the whole set-up, including a lock file valid on
every platform: \`terraform providers lock -fs-mirror="$(npx mgmt install-provider --print-mirror)" -platform=linux_amd64 -platform=darwin_arm64 ...\`.
`,
  );
  rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
  return out;
}

/** `npm pack` of a staged folder into `destination`; npm fixes every entry's time, so the bytes follow the contents. */
async function pack(folder, destination, expected) {
  rmSync(join(destination, expected), { force: true });
  // Run in the folder itself, so that npm takes it and nothing above it (the root's workspaces) as the package.
  await promisify(execFile)("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", destination], {
    cwd: folder,
    env: { ...process.env, npm_config_workspaces: "", npm_config_workspace: "", npm_config_update_notifier: "false" },
  });
  if (!existsSync(join(destination, expected))) throw new Error(`npm pack of ${folder} did not write ${expected}`);
}

export async function packProvider(root, { source, version, external }) {
  const destination = join(root, "dist", "packages");
  mkdirSync(destination, { recursive: true });
  // The bindings first: the provider package carries their tarballs.
  const bindings = ["cdktf-bindings", "cdktn-bindings"].map((name) => join(root, "dist", name));
  const nameOf = (folder) => tarballName(JSON.parse(readFileSync(join(folder, "package.json"), "utf8")).name, version);
  await Promise.all(bindings.map((folder) => pack(folder, destination, nameOf(folder))));
  const carried = bindings.map((folder) => join(destination, nameOf(folder)));
  const provider = stageProviderPackage(root, { source, version, external, carried });
  await pack(provider, destination, nameOf(provider));
  const wanted = [provider, ...bindings].map(nameOf);
  // Tarballs of other versions would be taken for current ones by a glob.
  for (const file of readdirSync(destination)) if (!wanted.includes(file)) rmSync(join(destination, file), { force: true });
}
