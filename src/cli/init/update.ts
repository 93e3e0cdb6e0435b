/**
 * `mgmt init --update`: the files `mgmt init` writes, brought to this version by a three-way merge, as Copier
 * and cruft update a project. Base: what the recorded version wrote with the recorded answers (run again from
 * that version's own package: the repository's installed or vendored copy, or `npm pack` of it from the
 * registry); ours: the repository; theirs: what this version writes. The team's edits are kept, conflicts are
 * marked in the file (git's merge-file markers) and listed, and nothing is overwritten silently.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { ANSWERS_FILE, inferAnswers, parseAnswers, type Answers } from "./answers";
import type { ScaffoldFile } from "./scaffold";

/** The repository's answers: its answers file, or inferred (with a note saying so). */
export function readAnswers(repo: string): { answers: Answers; notes: string[] } | { problem: string } {
  const file = join(repo, ANSWERS_FILE);
  if (existsSync(file)) return { answers: parseAnswers(readFileSync(file, "utf8")), notes: [] };
  if (!existsSync(join(repo, "package.json"))) return { problem: `${repo} has no package.json: run mgmt init --update in a repository mgmt init wrote` };
  const text = (path: string) => (existsSync(join(repo, path)) ? readFileSync(join(repo, path), "utf8") : undefined);
  return inferAnswers({
    packageJson: text("package.json")!,
    cdktfJson: text("cdktf.json"),
    mainTs: text("main.ts"),
    has: (path) => existsSync(join(repo, path)),
  });
}

/** Every file under `dir`, relative, with `/`. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"));

/** The recorded version's `mgmt` (its dist/cli.js): installed in the repository, vendored in it, or packed from the registry into `scratch`. */
function oldMgmt(repo: string, version: string, scratch: string): string {
  const installed = join(repo, "node_modules", "@mgmt", "provider");
  if (
    existsSync(join(installed, "package.json")) &&
    (JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { version: string }).version === version
  ) {
    return join(installed, "dist", "cli.js");
  }
  let tarball = join(repo, "packages", `mgmt-provider-${version}.tgz`);
  if (!existsSync(tarball)) {
    const packed = spawnSync("npm", ["pack", `@mgmt/provider@${version}`, "--pack-destination", scratch, "--silent"], { cwd: repo, encoding: "utf8" });
    tarball = join(scratch, `mgmt-provider-${version}.tgz`);
    if (packed.status !== 0 || !existsSync(tarball)) {
      throw new Error(
        `mgmt init ${version} (which made this repository) is neither installed, vendored in packages/ nor on the registry: ${packed.stderr.trim()}`,
      );
    }
  }
  const into = join(scratch, "old");
  mkdirSync(into);
  execFileSync("tar", ["-xzf", tarball, "-C", into]);
  return join(into, "package", "dist", "cli.js");
}

/** What the recorded version wrote with the recorded answers (packages/ left out: tarballs are not merged). */
function baseFiles(repo: string, a: Answers, scratch: string): Map<string, string> {
  const cli = oldMgmt(repo, a.version, scratch);
  // In a folder of the repository's name, which init writes into package.json and the README.
  const out = join(scratch, "base", basename(repo));
  const flags = ["--ci", a.ci.length ? a.ci.join(",") : "none", "--backend", a.backend, "--engine", a.engine, ...(a.cdk === "cdktn" ? ["--cdk", "cdktn"] : [])];
  // A vendored repository gives the old init its own tarballs; one on the registry runs the old init as installed.
  // Only that version's tarballs: the folder may hold this version's too, which the old init would take as the newest.
  const packages: string[] = [];
  if (a.vendored && existsSync(join(repo, "packages"))) {
    const own = join(scratch, "packages");
    mkdirSync(own);
    for (const f of readdirSync(join(repo, "packages"))) if (f.endsWith(`-${a.version}.tgz`)) copyFileSync(join(repo, "packages", f), join(own, f));
    packages.push("--packages", own);
  }
  const r = spawnSync(process.execPath, [cli, "init", out, ...flags, ...packages], { cwd: scratch, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`mgmt init ${a.version} could not write the base of the merge:\n${r.stderr}`);
  const files = new Map<string, string>();
  for (const path of filesUnder(out)) if (!path.startsWith("packages/")) files.set(path, readFileSync(join(out, path), "utf8"));
  // Its projectId was drawn at random: the repository's own is the one it wrote.
  const cdktf = files.get("cdktf.json");
  if (cdktf !== undefined && a.projectId !== undefined) files.set("cdktf.json", cdktf.replace(/"projectId": "[^"]*"/, `"projectId": "${a.projectId}"`));
  return files;
}

export type Outcome = "added" | "updated" | "merged" | "conflict" | "unchanged" | "kept" | "removed";

export interface UpdateReport {
  readonly changes: ReadonlyArray<{ readonly path: string; readonly outcome: Outcome; readonly note?: string }>;
  readonly conflicts: readonly string[];
}

/** git's three-way merge of one file's texts: the merged text and how many conflicts it marked. */
function merge3(scratch: string, ours: string, base: string, theirs: string, labels: [string, string, string]): { text: string; conflicts: number } {
  const [o, b, t] = ["ours", "base", "theirs"].map((n) => join(scratch, `merge-${n}`));
  writeFileSync(o!, ours);
  writeFileSync(b!, base);
  writeFileSync(t!, theirs);
  const r = spawnSync("git", ["merge-file", "-p", "-L", labels[0], "-L", labels[1], "-L", labels[2], o!, b!, t!], { encoding: "utf8" });
  if (r.status === null || r.status < 0 || r.status > 127) throw new Error(`git merge-file failed: ${r.stderr}`);
  return { text: r.stdout, conflicts: r.status };
}

/** Brings `repo`'s scaffold files from what `answers` recorded to `theirs` (this version's files for the same answers). */
export function updateRepository(repo: string, answers: Answers, theirs: Map<string, ScaffoldFile>, thisVersion: string): UpdateReport {
  const scratch = mkdtempSync(join(tmpdir(), "mgmt-init-update-"));
  try {
    const base = baseFiles(repo, answers, scratch);
    const changes: Array<{ path: string; outcome: Outcome; note?: string }> = [];
    const conflicts: string[] = [];
    const write = (path: string, text: string, executable?: boolean) => {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), text);
      if (executable) chmodSync(join(repo, path), 0o755);
    };
    const labels: [string, string, string] = ["this repository", `mgmt init ${answers.version}`, `mgmt init ${thisVersion}`];
    for (const path of [...new Set([...base.keys(), ...theirs.keys()])].sort()) {
      const b = base.get(path);
      const t = theirs.get(path);
      const full = join(repo, path);
      const o = existsSync(full) ? readFileSync(full, "utf8") : undefined;
      if (t === undefined) {
        // No longer written: removed when the team left it as it was, kept (and said) when they edited it.
        if (o === undefined) continue;
        if (o === b) {
          unlinkSync(full);
          changes.push({ path, outcome: "removed" });
        } else changes.push({ path, outcome: "kept", note: `mgmt init ${thisVersion} no longer writes it; your edits keep it here` });
      } else if (o === undefined) {
        if (b === undefined) {
          write(path, t.text, t.executable);
          changes.push({ path, outcome: "added" });
        } else if (b !== t.text) changes.push({ path, outcome: "kept", note: `you deleted it; mgmt init ${thisVersion} changed it (not restored)` });
      } else if (o === t.text) {
        changes.push({ path, outcome: "unchanged" });
      } else if (b === undefined || o === b) {
        // Untouched since init (or written anew by both): this version's text. A new file of the same name as one of the team's is merged against nothing.
        if (b === undefined) {
          const m = merge3(scratch, o, "", t.text, labels);
          write(path, m.text, t.executable);
          changes.push({ path, outcome: m.conflicts ? "conflict" : "merged" });
          if (m.conflicts) conflicts.push(path);
        } else {
          write(path, t.text, t.executable);
          changes.push({ path, outcome: "updated" });
        }
      } else if (b === t.text) {
        changes.push({ path, outcome: "unchanged", note: "your edits kept; this version changes nothing here" });
      } else {
        const m = merge3(scratch, o, b, t.text, labels);
        write(path, m.text, t.executable);
        changes.push({ path, outcome: m.conflicts ? "conflict" : "merged", ...(m.conflicts ? { note: `${m.conflicts} conflict(s) marked` } : {}) });
        if (m.conflicts) conflicts.push(path);
      }
    }
    if (answers.vendored && answers.version !== thisVersion && existsSync(join(repo, "packages"))) {
      const old = readdirSync(join(repo, "packages")).filter((f) => f.endsWith(`-${answers.version}.tgz`));
      for (const f of old) changes.push({ path: `packages/${f}`, outcome: "kept", note: "no longer used: git rm it" });
    }
    return { changes, conflicts };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The report as the command prints it: what changed, and what to resolve. */
export function describeUpdate(r: UpdateReport, notes: readonly string[], from: string, to: string): string {
  const lines = [...notes, `mgmt init --update: ${from} -> ${to}`];
  for (const c of r.changes) if (c.outcome !== "unchanged") lines.push(`  ${c.outcome.padEnd(9)} ${c.path}${c.note ? ` (${c.note})` : ""}`);
  if (r.changes.every((c) => c.outcome === "unchanged")) lines.push("  nothing to change");
  if (r.conflicts.length) lines.push(`\nconflicts, marked <<<<<<< ======= >>>>>>> in: ${r.conflicts.join(", ")}\nresolve them, then npm install`);
  else lines.push("\nnext: npm install && npx mgmt install-provider, then init -upgrade in the stack's folder and a plan");
  return `${lines.join("\n")}\n`;
}
