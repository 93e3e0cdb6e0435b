/**
 * `mgmt init DIR`: a team's infrastructure repository, as `cdktf init --template` makes a project.
 * From an installed @mgmt/provider (`npx @mgmt/provider init DIR`) package.json asks the npm registry
 * for the provider and its cdktf (or cdktn) bindings by name and version range, as a team's other tools
 * are; with --packages (or --vendor) they are copied into DIR/packages/ and package.json refers to them
 * as `file:` paths, so a fresh clone (a CI runner) installs from the repository itself, offline teams too.
 */
import { randomUUID } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseCommand } from "../args";
import { newestTarball } from "./newest";
import { scaffoldOptions, type CdkName } from "./options";
import { scaffoldFiles } from "./scaffold";
import { describeUpdate, readAnswers, updateRepository } from "./update";
import { packFolder, readManifest } from "./tarball";
import type { VendoredPackage } from "./templates/context";

export const INIT_USAGE = `usage: mgmt init DIR [--ci github,gitlab|none] [--backend local|pg] [--engine tofu|terraform]
                 [--cdk cdktf|cdktn] [--packages DIR | --vendor] [--force]
       mgmt init --update [DIR] [--packages DIR | --vendor]

Writes a team's infrastructure repository into DIR: a cdktf (or cdktn) stack of every resource type
(main.ts), package.json depending on the provider and its bindings (from the npm registry by
version range when this mgmt is an installed @mgmt/provider, vendored in DIR/packages/ otherwise),
tests (npm test) and CI workflows for plans in pull requests and scheduled drift checks.
  --cdk NAME       cdktf (default) or cdktn: CDK Terrain, cdktf's continuation; main.ts and the
                   tests import cdktn, the npm scripts run the cdktn CLI on node 22 and up (on
                   node 20 they say so and run main.ts and the engine themselves), and the CI
                   jobs run on node 22
  --ci LIST        github, gitlab, both (default github,gitlab) or none
  --backend NAME   local (default): state in a file; pg: state in Postgres, the connection
                   string read from PG_CONN_STR when the engine runs, never written to a file
  --engine NAME    tofu (default: OpenTofu from npm) or terraform (from PATH)
  --packages DIR   vendor the provider and bindings tarballs found in DIR (default for a
                   build of the repository: dist/packages, which npm run build writes)
  --vendor         from an installed @mgmt/provider: vendor it (packed again) and the bindings
                   tarballs it carries instead of naming them on the registry
  --force          write into DIR even when it is not empty (files of the same name are replaced)
  --update         bring the files init wrote in DIR (default: here) to this version by a
                   three-way merge: what the version and answers in .mgmt-init.json wrote
                   (inferred from package.json when there is none), the repository, and
                   what this version writes; your edits are kept, conflicts marked and listed
  -h, --help       show this help
`;

/** npm pack's file names, less `-<version>.tgz`: the provider package and each CDK's bindings. */
const PROVIDER_TARBALL = "mgmt-provider";
const BINDINGS_TARBALL: Record<CdkName, string> = { cdktf: "mgmt-cdktf-provider-mgmt", cdktn: "mgmt-cdktn-provider-mgmt" };
/** Each CDK's bindings package, as the registry names it (scripts/package-bindings.mjs). */
const BINDINGS_PACKAGE: Record<CdkName, string> = { cdktf: "@mgmt/cdktf-provider-mgmt", cdktn: "@mgmt/cdktn-provider-mgmt" };
/** The one stack a new repository has; the workflows' matrices list it. */
export const STACK = "account";

class InitError extends Error {}

/** The tarball of the highest version named `<stem>-<version>.tgz` in `dir`. */
function findTarball(dir: string, stem: string, what: string): string {
  const found = newestTarball(readdirSync(dir), stem);
  if (found === undefined) throw new InitError(`--packages ${dir} has no ${what} tarball (${stem}-<version>.tgz)`);
  return join(dir, found);
}

function vendor(tarball: string, target: string): VendoredPackage {
  const { name, version } = readManifest(tarball);
  const file = `packages/${basename(tarball)}`;
  mkdirSync(join(target, "packages"), { recursive: true });
  copyFileSync(tarball, join(target, file));
  return { name, version, file };
}

/** An npm package name from the folder's name: lower case, [a-z0-9-._] only. */
export function packageName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+|[-]+$/g, "");
  return name || "infrastructure";
}

function defaultPackagesDir(): string | undefined {
  const beside = join(__dirname, "packages");
  return existsSync(beside) ? beside : undefined;
}

/** The provider package's name, which its installed folder's package.json carries. */
const PROVIDER_PACKAGE = "@mgmt/provider";

/** The folder of the installed @mgmt/provider this mgmt runs from; undefined when it runs from a build of the repository. */
function installedProvider(): string | undefined {
  const root = dirname(__dirname);
  try {
    return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name?: unknown }).name === PROVIDER_PACKAGE ? root : undefined;
  } catch {
    return undefined;
  }
}

const installedVersion = (root: string): string => (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;

/**
 * The installed provider package, packed again into DIR/packages: a package cannot carry its own
 * tarball, so `npx --package ./mgmt-provider-X.tgz mgmt init` vendors what npm unpacked. Its
 * node_modules (what npm installed for it) and the bindings tarballs it carries stay out: the
 * repository vendors the bindings beside it.
 */
function vendorInstalled(root: string, target: string): VendoredPackage {
  const { name, version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; version: string };
  const file = `packages/${PROVIDER_TARBALL}-${version}.tgz`;
  mkdirSync(join(target, "packages"), { recursive: true });
  writeFileSync(
    join(target, file),
    packFolder(root, (path) => path === "node_modules" || path === "dist/packages"),
  );
  return { name, version, file };
}

export async function runInit(args: string[]): Promise<number> {
  const parsed = parseCommand(
    "init",
    INIT_USAGE,
    args,
    {
      ci: { type: "string" },
      backend: { type: "string" },
      engine: { type: "string" },
      cdk: { type: "string" },
      packages: { type: "string" },
      vendor: { type: "boolean" },
      update: { type: "boolean" },
      force: { type: "boolean" },
    },
    { maxPositionals: 1 },
  );
  if ("exit" in parsed) return parsed.exit;
  const fail = (message: string, code = 2) => {
    process.stderr.write(`mgmt init: ${message}\n${code === 2 ? INIT_USAGE : ""}`);
    return code;
  };
  const [dirArg = parsed.values.update ? "." : undefined] = parsed.positionals;
  if (dirArg === undefined) return fail("which folder? give DIR");
  if (parsed.values.update) {
    const given = (["ci", "backend", "engine", "cdk", "force"] as const).filter((f) => parsed.values[f] !== undefined);
    if (given.length) return fail(`--update takes its options from ${"the repository's .mgmt-init.json"}, not --${given.join(", --")}`);
  }
  const options = scaffoldOptions(parsed.values);
  if ("problem" in options) return fail(options.problem);
  if (parsed.values.packages !== undefined && parsed.values.vendor) return fail("--packages vendors from DIR already: give --packages or --vendor");
  // From an installed package, the provider is that package itself: named on the registry unless vendored.
  const installed = parsed.values.packages === undefined ? installedProvider() : undefined;
  const fromRegistry = installed !== undefined && !parsed.values.vendor;
  const packagesDir = parsed.values.packages ?? defaultPackagesDir();
  if (!fromRegistry && packagesDir === undefined)
    return fail("no provider packages beside this mgmt: give --packages DIR (the dist/packages that npm run build writes)");
  if (!fromRegistry && (!existsSync(packagesDir!) || !statSync(packagesDir!).isDirectory())) return fail(`--packages ${packagesDir} is not a folder`);

  const target = resolve(dirArg);
  if (parsed.values.update) {
    const read = readAnswers(target);
    if ("problem" in read) return fail(read.problem, 1);
    const { answers, notes } = read;
    try {
      let provider: VendoredPackage;
      let bindings: VendoredPackage;
      if (fromRegistry) {
        provider = { name: PROVIDER_PACKAGE, version: installedVersion(installed) };
        bindings = { name: BINDINGS_PACKAGE[answers.cdk], version: provider.version };
      } else {
        const providerTarball = installed === undefined ? findTarball(packagesDir!, PROVIDER_TARBALL, "provider") : undefined;
        const bindingsTarball = findTarball(packagesDir!, BINDINGS_TARBALL[answers.cdk], `${answers.cdk} bindings`);
        provider = providerTarball !== undefined ? vendor(providerTarball, target) : vendorInstalled(installed!, target);
        bindings = vendor(bindingsTarball, target);
      }
      const name = (JSON.parse(readFileSync(join(target, "package.json"), "utf8")) as { name?: string }).name ?? packageName(target);
      const theirs = scaffoldFiles({ ...answers, name, stack: STACK, provider, bindings });
      const report = updateRepository(target, answers, theirs, provider.version);
      process.stdout.write(describeUpdate(report, notes, answers.version, provider.version));
      return report.conflicts.length ? 1 : 0;
    } catch (err) {
      if (err instanceof InitError) return fail(err.message, 1);
      if (err instanceof Error) return fail(err.message, 1);
      throw err;
    }
  }
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) return fail(`${dirArg} exists and is not a folder`, 1);
    if (readdirSync(target).length > 0 && !parsed.values.force) return fail(`${dirArg} is not empty; --force writes into it anyway`, 1);
  }

  try {
    mkdirSync(target, { recursive: true });
    let provider: VendoredPackage;
    let bindings: VendoredPackage;
    if (fromRegistry) {
      // The bindings of the same version: they peer with exactly this provider version.
      provider = { name: PROVIDER_PACKAGE, version: installedVersion(installed) };
      bindings = { name: BINDINGS_PACKAGE[options.cdk], version: provider.version };
    } else {
      const providerTarball = installed === undefined ? findTarball(packagesDir!, PROVIDER_TARBALL, "provider") : undefined;
      const bindingsTarball = findTarball(packagesDir!, BINDINGS_TARBALL[options.cdk], `${options.cdk} bindings`);
      provider = providerTarball !== undefined ? vendor(providerTarball, target) : vendorInstalled(installed!, target);
      bindings = vendor(bindingsTarball, target);
    }
    const files = scaffoldFiles({ ...options, name: packageName(target), stack: STACK, provider, bindings, projectId: randomUUID() });
    for (const [path, file] of files) {
      const full = join(target, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, file.text);
      if (file.executable) chmodSync(full, 0o755);
    }
    process.stdout.write(
      `wrote ${files.size + (fromRegistry ? 0 : 2)} files into ${target}\n\nnext:\n  cd ${dirArg}\n  npm install\n  npx mgmt install-provider\n  npm test\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof InitError) return fail(err.message, 1);
    throw err;
  }
}
