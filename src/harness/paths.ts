import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The repository root: the nearest folder above this code with our package.json, which holds
 * whether the code runs from src/ (tests), dist/ (bundles) or .tmp/ (bundled scripts).
 */
function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "terraform-provider-mgmt") return dir;
    if (dirname(dir) === dir) throw new Error(`no terraform-provider-mgmt package.json above ${start}`);
  }
}

let root: string | undefined;
export const repoRoot = (): string => (root ??= findRoot(__dirname));
export const repoPath = (...parts: string[]): string => join(repoRoot(), ...parts);
