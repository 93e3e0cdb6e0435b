/** What every template reads: the chosen options, the stack's name and the two vendored packages. */
import type { ScaffoldOptions } from "../options";

export interface VendoredPackage {
  /** The npm name, e.g. @mgmt/provider. */
  readonly name: string;
  readonly version: string;
  /** Where the tarball sits in the new repository, relative to its root: packages/NAME.tgz. */
  readonly file: string;
}

export interface ScaffoldContext extends ScaffoldOptions {
  /** The package name of the new repository. */
  readonly name: string;
  /** The cdktf stack: cdktf.out/stacks/<stack> is what the engines and the workflows run in. */
  readonly stack: string;
  readonly provider: VendoredPackage;
  readonly bindings: VendoredPackage;
}

/** The engine's command line in npm scripts and CI: the `tofu` the package installs, or Terraform from PATH. */
export const engineCommand = (c: ScaffoldContext): string => (c.engine === "tofu" ? "npx tofu" : "terraform");

/** How long a plan or deploy of shared state waits for another's lock (docs/guides/shared-state.md). */
export const LOCK_TIMEOUT = "-lock-timeout=10m";
