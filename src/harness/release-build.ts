/**
 * Each release built from its own commit, for the upgrade tests: a stack applied by a release must
 * plan with no changes under the current code. A release is built once per checkout (kept under
 * node_modules/.cache, so a fresh clone builds it once per run) and shared by every test that asks.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { madeOnce } from "./made-once";
import { repoPath, repoRoot } from "./paths";
import type { Release } from "./releases";

export interface BuiltRelease extends Release {
  /** The release's checkout, built: `bin/` for dev_overrides, `dist/mirror` for a filesystem mirror, `dist/packages` for its tarballs. */
  readonly root: string;
}

function git(args: string[]): Buffer {
  return execFileSync("git", ["-C", repoRoot(), ...args], { maxBuffer: 1 << 30 });
}

interface Lock {
  readonly packages: { readonly [path: string]: { readonly version?: string } };
}

/** Whether this checkout's node_modules holds every package the release locked, at its version (more does no harm). */
function installedHas(releaseLock: Lock): boolean {
  const ours = (JSON.parse(readFileSync(repoPath("package-lock.json"), "utf8")) as Lock).packages;
  return Object.entries(releaseLock.packages).every(([path, p]) => path === "" || ours[path]?.version === p.version);
}

/**
 * The release's sources as its commit has them, with node_modules: linked to this checkout's when
 * that holds what the release locked (a build of seconds), installed from npm's cache otherwise.
 */
function checkOut(release: Release, into: string): void {
  const has = () => {
    try {
      git(["cat-file", "-e", `${release.commit}^{commit}`]);
      return true;
    } catch {
      return false;
    }
  };
  // A shallow clone (as some CI checkouts are) lacks the release's commit: its origin has it.
  if (!has() && git(["rev-parse", "--is-shallow-repository"]).toString().trim() === "true") {
    spawnSync("git", ["-C", repoRoot(), "fetch", "--quiet", "--unshallow"], { stdio: "ignore" });
  }
  if (!has()) {
    throw new Error(
      `release ${release.version} was cut from commit ${release.commit}, which this clone does not have and its origin could not give: fetch main's history`,
    );
  }
  mkdirSync(into, { recursive: true });
  execFileSync("tar", ["-x", "-C", into], { input: git(["archive", "--format=tar", release.commit]), maxBuffer: 1 << 30 });
  if (installedHas(JSON.parse(git(["show", `${release.commit}:package-lock.json`]).toString("utf8")) as Lock)) {
    symlinkSync(repoPath("node_modules"), join(into, "node_modules"));
    const workspace = join("examples", "cdktn", "node_modules");
    if (existsSync(repoPath(workspace)) && existsSync(join(into, "examples", "cdktn"))) symlinkSync(repoPath(workspace), join(into, workspace));
    return;
  }
  const npm = spawnSync("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: into,
    encoding: "utf8",
    env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr", CHECKPOINT_DISABLE: "1" },
  });
  if (npm.status !== 0) throw new Error(`npm ci for release ${release.version} failed:\n${npm.stdout.slice(-2000)}\n${npm.stderr.slice(-2000)}`);
}

/** Builds the release (or finds it built), as `npm run build` did when it was cut. */
export function buildRelease(release: Release): BuiltRelease {
  const root = madeOnce(repoPath("node_modules", ".cache", "mgmt-releases", `${release.version}-${release.commit.slice(0, 12)}`), (into) => {
    checkOut(release, into);
    const build = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: into, encoding: "utf8", env: { ...process.env, CHECKPOINT_DISABLE: "1" } });
    if (build.status !== 0) throw new Error(`building release ${release.version} failed:\n${build.stderr.slice(-3000)}`);
  });
  return { ...release, root };
}
