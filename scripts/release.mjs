#!/usr/bin/env node
/**
 * Cuts a release: `npm run release -- X.Y.Z [--date YYYY-MM-DD] [--next X.Y.Z] [--no-corpus] [--no-commit]`.
 *
 * The release is the commit the tree stands on (HEAD), which must be clean, at version X.Y.Z, with a
 * CHANGELOG.md section for X.Y.Z that says something. The command records version, date and commit in
 * releases.json (the one record: src/harness/releases.ts reads it for the release builds and upgrade tests,
 * and test/docs/changelog.test.ts holds CHANGELOG.md to it), dates the changelog's heading and names the
 * commit below it, records what the release writes into the upgrade corpus (test/upgrade/corpus), moves the
 * tree to the next version (a minor release by default) under a fresh Unreleased heading, and commits that.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

function fail(message) {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const o = { version: undefined, date: new Date().toISOString().slice(0, 10), next: undefined, from: "HEAD", corpus: true, commit: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--date") o.date = argv[++i];
    else if (a === "--next") o.next = argv[++i];
    else if (a === "--from") o.from = argv[++i];
    else if (a === "--no-corpus") o.corpus = false;
    else if (a === "--no-commit") o.commit = false;
    else if (!a.startsWith("-") && o.version === undefined) o.version = a;
    else fail(`unknown argument ${a}`);
  }
  if (!o.version || !SEMVER.test(o.version))
    fail("usage: npm run release -- X.Y.Z [--date YYYY-MM-DD] [--next X.Y.Z] [--from COMMIT] [--no-corpus] [--no-commit]");
  if (!/^\d{4}-\d{2}-\d{2}$/.test(o.date ?? "")) fail(`--date takes YYYY-MM-DD, not ${o.date}`);
  if (o.next === undefined) {
    const [, major, minor] = SEMVER.exec(o.version);
    o.next = `${major}.${Number(minor) + 1}.0`;
  }
  if (!SEMVER.test(o.next) || compare(o.next, o.version) <= 0) fail(`the next version must be a later X.Y.Z than ${o.version}, not ${o.next}`);
  return o;
}

function compare(a, b) {
  const x = SEMVER.exec(a).slice(1).map(Number);
  const y = SEMVER.exec(b).slice(1).map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
const path = (...p) => join(root, ...p);
const git = (...args) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8" });
const readJson = (file) => JSON.parse(readFileSync(path(file), "utf8"));
const writeJson = (file, value) => writeFileSync(path(file), JSON.stringify(value, null, 2) + "\n");

/** The changelog's section of `version`: its heading line, where it starts and ends, and what it says. */
function section(changelog, version) {
  const headings = [...changelog.matchAll(/^## \[([^\]]+)\] - (.+)$/gm)];
  const i = headings.findIndex((h) => h[1] === version);
  if (i === -1) return undefined;
  const start = headings[i].index;
  const end = headings[i + 1]?.index ?? changelog.length;
  return { first: i === 0, when: headings[i][2], start, end, body: changelog.slice(start + headings[i][0].length, end) };
}

/** CHANGELOG.md with `version`'s section dated and naming its commit, below a fresh Unreleased section of `next`. */
function cutChangelog(changelog, { version, date, commit, next }) {
  const s = section(changelog, version);
  // A commit line already there (a cut started again) is replaced, not repeated.
  const body = s.body.replace(/^\n+/, "").replace(/^Commit `[0-9a-f]+`\.?\n+/, "");
  const dated = `## [${version}] - ${date}\n\nCommit \`${commit}\`.\n\n${body}`;
  return `${changelog.slice(0, s.start)}## [${next}] - Unreleased\n\n${dated}${changelog.slice(s.end)}`;
}

const o = parseArgs(process.argv.slice(2));

// What must hold before anything is written.
const dirty = git("status", "--porcelain");
if (dirty.trim() !== "") fail(`the tree has uncommitted changes; a release is a commit:\n${dirty}`);
const pkg = readJson("package.json");
if (pkg.version !== o.version) fail(`the tree is at version ${pkg.version}, not ${o.version}`);
const releases = readJson("releases.json");
if (releases.some((r) => r.version === o.version)) fail(`${o.version} is already released (releases.json)`);
const last = releases[releases.length - 1];
if (last && compare(o.version, last.version) <= 0) fail(`${o.version} is not later than the last release, ${last.version}`);
const changelog = readFileSync(path("CHANGELOG.md"), "utf8");
const s = section(changelog, o.version);
if (!s) fail(`CHANGELOG.md has no section "## [${o.version}] - Unreleased": say what the release brings first`);
if (!s.first) fail(`CHANGELOG.md's first section is not ${o.version}`);
if (s.when !== "Unreleased" && s.when !== o.date) fail(`CHANGELOG.md dates ${o.version} ${s.when}, not ${o.date} (pass --date ${s.when})`);
if (!/^- /m.test(s.body)) fail(`CHANGELOG.md's section of ${o.version} lists no change`);
const commit = git("rev-parse", "--verify", `${o.from}^{commit}`).trim();
if (spawnSync("git", ["-C", root, "merge-base", "--is-ancestor", commit, "HEAD"]).status !== 0) fail(`${o.from} is not in the history of HEAD`);
const released = JSON.parse(git("show", `${commit}:package.json`)).version;
if (released !== o.version) fail(`${o.from} is version ${released}, not ${o.version}`);

// The record, and the changelog that names it.
writeJson("releases.json", [...releases, { version: o.version, commit, date: o.date }]);
writeFileSync(path("CHANGELOG.md"), cutChangelog(changelog, { version: o.version, date: o.date, commit, next: o.next }));

// What the release writes, kept for every later build to plan (test/upgrade/corpus.test.ts).
const corpus = [];
if (o.corpus) {
  const env = { ...process.env, MGMT_RECORD_UPGRADE_CORPUS: "1", CHECKPOINT_DISABLE: "1", npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" };
  if (spawnSync("terraform", ["version"], { stdio: "ignore" }).status !== 0) fail("terraform is not on PATH: the corpus records both engines");
  const run = (cmd, args) => {
    const r = spawnSync(cmd, args, { cwd: root, env, stdio: "inherit" });
    if (r.status !== 0)
      fail(`${cmd} ${args.join(" ")} failed; releases.json and CHANGELOG.md are changed but nothing is committed (git checkout . to start again)`);
  };
  run(process.execPath, ["scripts/build.mjs"]);
  run("npx", ["jest", "test/e2e/upgrade.test.ts", "--selectProjects", "default"]);
  for (const name of readdirSync(path("test", "upgrade", "corpus"))) if (name.startsWith(`${o.version}-`)) corpus.push(join("test", "upgrade", "corpus", name));
  for (const engine of ["tofu", "terraform"])
    if (!corpus.some((c) => c.endsWith(`${o.version}-${engine}`))) fail(`the corpus run wrote no ${o.version}-${engine}`);
}

// The tree moves on: one version for the package, its lock and the provider's identity.
writeJson("package.json", { ...pkg, version: o.next });
const lock = readJson("package-lock.json");
lock.version = o.next;
lock.packages[""].version = o.next;
writeJson("package-lock.json", lock);
const identity = path("src", "provider", "identity.ts");
const before = readFileSync(identity, "utf8");
const after = before.replace(/PROVIDER_VERSION = "[^"]+"/, `PROVIDER_VERSION = "${o.next}"`);
if (after === before) fail("src/provider/identity.ts names no PROVIDER_VERSION");
writeFileSync(identity, after);

const files = ["releases.json", "CHANGELOG.md", "package.json", "package-lock.json", "src/provider/identity.ts", ...corpus];
if (o.commit) {
  git("add", "--", ...files);
  git(
    "commit",
    "--quiet",
    "-m",
    `Release ${o.version}, cut from ${commit.slice(0, 12)}; the tree moves to ${o.next}`,
    "-m",
    `npm run release -- ${o.version}: releases.json records the release, CHANGELOG.md dates it, the upgrade corpus holds what it wrote.`,
  );
}
process.stdout.write(`released ${o.version} (${o.date}, commit ${commit}); the tree is at ${o.next}${o.commit ? ", committed" : ""}\n`);
for (const f of files) process.stdout.write(`  ${f}\n`);
