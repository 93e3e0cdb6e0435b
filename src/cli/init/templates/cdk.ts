/**
 * What differs between a cdktf repository and a CDK Terrain (cdktn) one; every template reads it
 * here and is otherwise the same text. cdktn is cdktf's continuation with the same layout
 * (cdktf.json, cdktf.out/stacks/NAME/cdk.tf.json), but its CLI needs Node 22: the npm scripts run
 * it there (tools/cdktn.sh, templates/cdktn-script.ts), and on Node 20 run main.ts with ts-node
 * (as cdktf.json's app would be) and the engine in the stack's folder, as `cdktn deploy` would.
 * The CI for cdktn runs on Node 22.
 */
import { DEFAULT_BINDINGS } from "../../drift";
import type { CdkName } from "../options";
import type { ScaffoldContext } from "./context";
import { fastSynth } from "./stack-runner";
import { CDKTN_NODE_MAJOR, CDKTN_VERSIONS, NODE_MAJOR, VERSIONS } from "./versions";

/** The CDK the repository is for. */
export const cdkOf = (c: ScaffoldContext): CdkName => c.cdk ?? "cdktf";

/** The module main.ts, jest.setup.js and the tests import App, TerraformStack and Testing from. */
export const cdkModule = (c: ScaffoldContext): string => cdkOf(c);

/** The CDK library and constructs at a range it takes (cdktn 0.24 peers with constructs below 10.8). */
export function cdkDependencies(c: ScaffoldContext): Record<string, string> {
  return cdkOf(c) === "cdktf"
    ? { cdktf: VERSIONS.cdktf, constructs: VERSIONS.constructs }
    : { cdktn: CDKTN_VERSIONS.cdktn, constructs: CDKTN_VERSIONS.constructs };
}

/**
 * The CDK's CLI, which the npm scripts run. cdktn-cli asks for Node 22 in its engines, which npm
 * only warns about on Node 20 (EBADENGINE): it installs there and the scripts leave it unused.
 */
export const cdkDevDependencies = (c: ScaffoldContext): Record<string, string> =>
  cdkOf(c) === "cdktf" ? { "cdktf-cli": VERSIONS["cdktf-cli"] } : { "cdktn-cli": CDKTN_VERSIONS["cdktn-cli"] };

/** The Node major of the CI jobs (setup-node, the GitLab image): cdktn's CLI needs 22. */
export const ciNodeMajor = (c: ScaffoldContext): number => (cdkOf(c) === "cdktf" ? NODE_MAJOR : CDKTN_NODE_MAJOR);

/** Install scripts npm may run for the CDK's CLI: cdktf-cli's terminal addon. */
export const cdkInstallScripts = (c: ScaffoldContext): Record<string, boolean> => (cdkOf(c) === "cdktf" ? { "@cdktf/node-pty-prebuilt-multiarch": true } : {});

/**
 * The synth of cdktf's npm run synth (and of npm test, through jest.global-setup.js): main.ts itself, which writes
 * cdktf.out when run on any Node, its types stripped rather than checked (stack-runner.ts).
 */
export const synthScript = (_c: ScaffoldContext): string => fastSynth;

/** The synth step of the CI jobs: the npm script, with the settings every script sets (context.ts, scriptEnvironment). */
export const ciSynth = (_c: ScaffoldContext): string => "npm run synth";

/** `mgmt drift --import-out` writes constructs from the default (cdktf) bindings unless told the module. */
export const driftBindingsFlag = (c: ScaffoldContext): string => (c.bindings.name === DEFAULT_BINDINGS ? "" : ` --bindings ${c.bindings.name}`);
