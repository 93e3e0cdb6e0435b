/**
 * One npm install per scaffold flavour (`mgmt init` as is, or with `--cdk cdktn`) for every test that
 * uses it (team-repo.test.ts and team-repo-terraform.test.ts; team-repo-cdktn.test.ts and
 * cdktn-cli.test.ts): minutes each on two cores when every file installed its own. Each install is
 * kept under node_modules/.cache per build of the packages it installs (so a fresh clone installs
 * each flavour once per run), and each repository links its node_modules. A repository of the same
 * packages less OpenTofu's (`--engine terraform`) is served by the same link. That a repository from
 * `mgmt init` installs from nothing is proven where it counts, by the generated CI's own `npm ci` on a
 * cold cache (the plan.yml test of team-repo.test.ts).
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { repoPath } from "../../src/harness/paths";
import type { TeamRepoWork } from "../e2e/team-repo-setup";
import { processAlive } from "./process-alive";

const CACHE_ROOT = repoPath("node_modules", ".cache", "mgmt-scaffold-install");
const DONE = ".installed";

/** Every file under `dir`, relative to it, sorted. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();

/**
 * What decides the install: the packages asked for, the files they come from (this build's tarballs,
 * the tofu shim) and the node that builds better-sqlite3's addon. Not the scripts, which differ by flag.
 */
function installKey(scaffold: string): string {
  const manifest = JSON.parse(readFileSync(join(scaffold, "package.json"), "utf8")) as Record<string, unknown>;
  const hash = createHash("sha256").update(process.versions.modules);
  for (const field of ["dependencies", "devDependencies", "optionalDependencies", "overrides"]) hash.update(`${field}=${JSON.stringify(manifest[field])}\n`);
  for (const dir of ["packages", "tools"])
    for (const f of filesUnder(join(scaffold, dir)))
      hash
        .update(`${dir}/${f}\n`)
        .update(readFileSync(join(scaffold, dir, f)))
        .update("\n");
  return hash.digest("hex").slice(0, 16);
}

/** Takes the lock of `key` (a folder holding the holder's pid), waiting while a live process holds it. */
async function lock(cache: string, key: string): Promise<() => void> {
  const dir = join(cache, `${key}.lock`);
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch {
      const holder = Number(existsSync(join(dir, "pid")) ? readFileSync(join(dir, "pid"), "utf8") : "");
      // A holder that died mid-install (a killed run) leaves the lock behind; one that has not yet written its pid has just taken it.
      if (holder > 0 && !processAlive(holder)) rmSync(dir, { recursive: true, force: true });
      else await sleep(500);
    }
  }
}

/**
 * The folder of an installed scaffold from `mgmt init DIR ...initFlags` (its package-lock.json and
 * node_modules), installing it if no test of this build has. npm runs with `w`'s environment (its npm
 * cache, the prebuilt addon in its HOME).
 */
export async function installedScaffold(w: TeamRepoWork, ...initFlags: string[]): Promise<string> {
  const cache = join(
    CACHE_ROOT,
    initFlags
      .join(" ")
      .replace(/[^a-z0-9]+/gi, "-")
      .replace(/^-|-$/g, "") || "default",
  );
  mkdirSync(cache, { recursive: true });
  // What a killed test left: a scaffold it was installing.
  for (const name of readdirSync(cache)) {
    const pid = /^probe-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(cache, name), { recursive: true, force: true });
  }
  // Named infra, as the tests' repositories are: the name is in the lock.
  const probeRoot = join(cache, `probe-${process.pid}-${Date.now()}`);
  const probe = join(probeRoot, "infra");
  w.ok(process.execPath, [repoPath("dist/cli.js"), "init", probe, ...initFlags], w.work);
  const key = installKey(probe);
  const installed = join(cache, key, "infra");
  if (existsSync(join(installed, DONE))) {
    rmSync(probeRoot, { recursive: true, force: true });
    return installed;
  }
  const unlock = await lock(cache, key);
  try {
    // Another test may have installed it while this one waited for the lock.
    if (!existsSync(join(installed, DONE))) {
      // An install of an earlier build is of no more use (and a few hundred MB): one a flavour is kept.
      for (const old of readdirSync(cache)) if (/^[0-9a-f]{16}$/.test(old)) rmSync(join(cache, old), { recursive: true, force: true });
      const started = Date.now();
      w.ok("npm", ["install", "--prefer-offline"], probe);
      // What the one install costs on this machine, for the suite's time budget.
      process.stdout.write(`scaffold npm install took ${Math.round((Date.now() - started) / 1000)} s\n`);
      writeFileSync(join(probe, DONE), `${new Date().toISOString()}\n`);
      // Renamed into place whole, so an install cut short is never taken for a finished one.
      renameSync(probeRoot, join(cache, key));
    }
  } finally {
    unlock();
    rmSync(probeRoot, { recursive: true, force: true });
  }
  return installed;
}

/**
 * Gives `repo` the shared install's node_modules, as a link. A repository of the same packages (any default
 * scaffold) gets its package-lock.json too; one of other packages (`--engine terraform`) has npm write its own
 * lock from them without installing, as `npm install` would have. npm starts that from the shared install's
 * lock, so it only prunes what the repository does not ask for (OpenTofu's packages) instead of resolving the
 * whole tree again: the same lock, byte for byte, in 2 s rather than 12 to 18 (one a file, on two cores).
 */
export function linkInstalled(w: TeamRepoWork, installed: string, repo: string): void {
  const deps = (dir: string) => {
    const m = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    return JSON.stringify([m.name, m.dependencies, m.devDependencies, m.optionalDependencies, m.overrides]);
  };
  cpSync(join(installed, "package-lock.json"), join(repo, "package-lock.json"));
  if (deps(repo) !== deps(installed)) w.ok("npm", ["install", "--package-lock-only", "--prefer-offline"], repo);
  symlinkSync(join(installed, "node_modules"), join(repo, "node_modules"));
}
