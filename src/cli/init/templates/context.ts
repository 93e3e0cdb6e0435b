/** What every template reads: the chosen options, the stack's name and the two packages (vendored, or from a registry). */
import type { ScaffoldOptions } from "../options";

export interface VendoredPackage {
  /** The npm name, e.g. @mgmt/provider. */
  readonly name: string;
  readonly version: string;
  /**
   * Where the tarball sits in the new repository, relative to its root: packages/NAME.tgz. Absent: the
   * package comes from the npm registry (the one .npmrc names) by name and version range.
   */
  readonly file?: string;
}

/**
 * The range a repository asks of a package it takes from a registry: this minor's patches before 1.0
 * (`~0.3.0`: a 0.x minor release may break, docs/guides/upgrading.md), any later release of the major after.
 */
export function versionRange(version: string): string {
  return version.startsWith("0.") ? `~${version}` : `^${version}`;
}

/** package.json's value for one of the two packages: its vendored tarball, or its range on the registry. */
export const dependencyOn = (p: VendoredPackage): string => (p.file !== undefined ? `file:${p.file}` : versionRange(p.version));

export interface ScaffoldContext extends ScaffoldOptions {
  /** The package name of the new repository. */
  readonly name: string;
  /** The cdktf stack: cdktf.out/stacks/<stack> is what the engines and the workflows run in. */
  readonly stack: string;
  readonly provider: VendoredPackage;
  readonly bindings: VendoredPackage;
  /**
   * cdktf.json's projectId. cdktf's CLI writes one into cdktf.json on its first run when there is none,
   * which leaves a fresh checkout's tree changed; init writes it instead. Absent: none is written.
   */
  readonly projectId?: string;
}

/** The engine's command line in npm scripts and CI: the `tofu` the package installs, or Terraform from PATH. */
export const engineCommand = (c: ScaffoldContext): string => (c.engine === "tofu" ? "npx tofu" : "terraform");

/** How long a plan or deploy of shared state waits for another's lock (docs/guides/shared-state.md). */
export const LOCK_TIMEOUT = "-lock-timeout=10m";

/**
 * What every npm script that runs the CDK's CLI or an engine sets first: no version checks (offline
 * they print a red `getaddrinfo ENOTFOUND checkpoint-api...`), and the engine the CDK's CLI runs:
 * `terraform` unless TERRAFORM_BINARY_NAME names another (cdktf-cli 0.21 and cdktn-cli 0.24 read only
 * that variable). An `export` at the head of the script: npm runs scripts with sh, the CI images' too.
 */
export function scriptEnvironment(c: ScaffoldContext, extra: readonly string[] = []): string {
  const cliEngine = c.engine === "tofu" ? ["TERRAFORM_BINARY_NAME=tofu"] : [];
  return `export ${["CHECKPOINT_DISABLE=1", ...cliEngine, ...extra].join(" ")} && `;
}
