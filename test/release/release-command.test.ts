/**
 * `npm run release -- X.Y.Z` (scripts/release.mjs) on a throwaway repository shaped as this one is: it refuses
 * a dirty tree, a version the tree is not at and a changelog section that lists nothing; a cut records the
 * release once in releases.json, dates the changelog's section and names its commit, moves the tree to the
 * next version under a fresh Unreleased heading, and commits that. The corpus run is the upgrade test's own
 * (test/e2e/upgrade.test.ts), left out here with --no-corpus.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";

const SCRIPT = repoPath("scripts", "release.mjs");
const FIRST = { version: "0.1.0", commit: "871308bea8e6d3cdb1729e7a933c635a838213f6", date: "2026-11-27" };

const CHANGELOG = `# Changelog

Preface.

## [0.2.0] - Unreleased

### Added

- A thing.

## [0.1.0] - 2026-11-27

Commit \`${FIRST.commit}\`. The first release.

### Added

- The first thing.
`;

let dir: string;
const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
const read = (file: string) => readFileSync(join(dir, file), "utf8");
const release = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { cwd: dir, encoding: "utf8" });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-release-"));
  const json = (file: string, value: unknown) => writeFileSync(join(dir, file), JSON.stringify(value, null, 2) + "\n");
  json("package.json", { name: "terraform-provider-mgmt", version: "0.2.0" });
  json("package-lock.json", {
    name: "terraform-provider-mgmt",
    version: "0.2.0",
    lockfileVersion: 3,
    packages: { "": { name: "terraform-provider-mgmt", version: "0.2.0" } },
  });
  json("releases.json", [FIRST]);
  writeFileSync(join(dir, "CHANGELOG.md"), CHANGELOG);
  mkdirSync(join(dir, "src", "provider"), { recursive: true });
  writeFileSync(join(dir, "src", "provider", "identity.ts"), `export const PROVIDER_VERSION = "0.2.0";\n`);
  git("init", "--quiet", "--initial-branch=main");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "0.2.0");
  git("config", "user.name", "t");
  git("config", "user.email", "t@example.com");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("cuts the release: one record, the changelog dated with its commit, the tree at the next version, one commit", () => {
  const cut = git("rev-parse", "HEAD");
  const r = release("0.2.0", "--date", "2026-12-01", "--no-corpus");
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  expect(JSON.parse(read("releases.json"))).toEqual([FIRST, { version: "0.2.0", commit: cut, date: "2026-12-01" }]);
  expect(read("CHANGELOG.md")).toBe(
    CHANGELOG.replace("## [0.2.0] - Unreleased\n", `## [0.3.0] - Unreleased\n\n## [0.2.0] - 2026-12-01\n\nCommit \`${cut}\`.\n`),
  );
  expect(JSON.parse(read("package.json")).version).toBe("0.3.0");
  const lock = JSON.parse(read("package-lock.json"));
  expect([lock.version, lock.packages[""].version]).toEqual(["0.3.0", "0.3.0"]);
  expect(read("src/provider/identity.ts")).toContain(`PROVIDER_VERSION = "0.3.0"`);
  expect(git("status", "--porcelain")).toBe("");
  expect(git("log", "-1", "--format=%s")).toBe(`Release 0.2.0, cut from ${cut.slice(0, 12)}; the tree moves to 0.3.0`);
});

it("cuts an earlier commit of the same version with --from, and takes the next version it is given", () => {
  const cut = git("rev-parse", "HEAD");
  writeFileSync(join(dir, "notes.txt"), "later\n");
  git("add", "notes.txt");
  git("commit", "--quiet", "-m", "later");
  expect(release("0.2.0", "--from", cut, "--next", "1.0.0", "--date", "2026-12-01", "--no-corpus").status).toBe(0);
  expect(JSON.parse(read("releases.json"))[1].commit).toBe(cut);
  expect(read("CHANGELOG.md")).toMatch(/^## \[1\.0\.0\] - Unreleased\n\n## \[0\.2\.0\] - 2026-12-01\n\nCommit `[0-9a-f]{40}`\.\n/m);
});

describe("refuses, writing nothing,", () => {
  const refused = (r: ReturnType<typeof release>, message: RegExp) => {
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(JSON.parse(read("releases.json"))).toEqual([FIRST]);
  };

  it("a dirty tree", () => {
    writeFileSync(join(dir, "CHANGELOG.md"), CHANGELOG + "\n- half-written\n");
    refused(release("0.2.0", "--no-corpus"), /uncommitted changes/);
  });

  it("a version the tree is not at", () => refused(release("0.3.0", "--no-corpus"), /the tree is at version 0\.2\.0, not 0\.3\.0/));

  it("a changelog without the version's section, or one that lists no change", () => {
    writeFileSync(join(dir, "CHANGELOG.md"), CHANGELOG.replace("## [0.2.0] - Unreleased", "## [Unreleased]"));
    git("commit", "--quiet", "-am", "no section");
    refused(release("0.2.0", "--no-corpus"), /no section "## \[0\.2\.0\] - Unreleased"/);
    writeFileSync(join(dir, "CHANGELOG.md"), CHANGELOG.replace("- A thing.\n", ""));
    git("commit", "--quiet", "-am", "empty section");
    refused(release("0.2.0", "--no-corpus"), /lists no change/);
  });

  it("a release already recorded, or an earlier commit of another version", () => {
    refused(release("0.2.0", "--from", "HEAD~0", "--next", "0.1.5", "--no-corpus"), /the next version must be a later/);
    writeFileSync(join(dir, "releases.json"), JSON.stringify([FIRST, { ...FIRST, version: "0.2.0" }], null, 2) + "\n");
    git("commit", "--quiet", "-am", "recorded");
    const r = release("0.2.0", "--no-corpus");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/already released/);
  });
});
