/**
 * One `npm install` of a scaffolded repository per checkout, shared by the test files that scaffold the
 * same one (test/e2e/team-repo-cdktn.test.ts and cdktn-cli.test.ts): its node_modules and
 * package-lock.json are kept under node_modules/.cache, keyed on what npm installs from (package.json,
 * the vendored tarballs, the tofu shim package), and hard-linked into each test's own scaffold. A file
 * that finds another installing the same key waits for it rather than install a second time.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import type { TeamRepoWork } from "./team-repo-setup";

const DONE = ".installed";
/** An install that has not finished in this long is taken for one that died. */
const STALE_MS = 20 * 60_000;

/** What npm installs from, hashed: the same key is the same install. */
function installKey(repo: string): string {
  const hash = createHash("sha256").update(readFileSync(join(repo, "package.json")));
  for (const dir of ["packages", join("tools", "tofu")]) {
    if (!existsSync(join(repo, dir))) continue;
    for (const file of readdirSync(join(repo, dir)).sort()) hash.update(file).update(readFileSync(join(repo, dir, file)));
  }
  return hash.digest("hex").slice(0, 16);
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** `paths` into the folder `to`: as hard links (nothing writes into an installed node_modules), copied where the file system takes none. */
function copyInto(w: TeamRepoWork, paths: string[], to: string): void {
  if (w.sh("cp", ["-al", ...paths, to], to).code !== 0) w.ok("cp", ["-a", ...paths, to], to);
}

/** node_modules and package-lock.json in `repo`, from the shared install; `npm install` there first when none has that key. */
export function installShared(w: TeamRepoWork, repo: string): void {
  const root = repoPath("node_modules", ".cache", "mgmt-scaffold-installs", installKey(repo));
  const lock = `${root}.lock`;
  mkdirSync(join(root, ".."), { recursive: true });
  while (!existsSync(join(root, DONE))) {
    try {
      mkdirSync(lock);
    } catch {
      // Another file is installing this key: wait for it, or take over once it looks dead.
      if (Date.now() - statSync(lock).mtimeMs > STALE_MS) rmSync(lock, { recursive: true, force: true });
      else sleep(2000);
      continue;
    }
    try {
      if (existsSync(join(root, DONE))) break;
      // better-sqlite3's addon from test/support/addon-prebuild.ts (teamRepoWork points HOME at it).
      w.ok("npm", ["install", "--prefer-offline"], repo);
      const partial = `${root}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial);
      copyInto(w, [join(repo, "node_modules"), join(repo, "package-lock.json")], partial);
      w.ok("touch", [join(partial, DONE)], repo);
      rmSync(root, { recursive: true, force: true });
      renameSync(partial, root);
      // Installs of earlier builds' packages (another key) serve no test any more; test copies keep their own links.
      const parent = join(root, "..");
      for (const other of readdirSync(parent)) {
        if (/^[0-9a-f]{16}$/.test(other) && join(parent, other) !== root) rmSync(join(parent, other), { recursive: true, force: true });
      }
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  copyInto(w, [join(root, "node_modules"), join(root, "package-lock.json")], repo);
}
