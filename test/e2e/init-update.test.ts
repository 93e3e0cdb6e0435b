/**
 * `mgmt init --update` from a repository 0.2.0 wrote (the release built from its commit, made once per checkout):
 * no answers file, so its answers are inferred and it says so; the team's edits to main.ts and to a CI file are
 * kept while this version's changes land, a line both changed is a conflict marked in the file and listed, and a
 * repository this version wrote (with its answers file) updates to nothing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRelease } from "../../src/harness/release-build";
import { RELEASES } from "../../src/harness/releases";
import { repoPath } from "../../src/harness/paths";
import { PROVIDER_VERSION } from "../../src/provider/identity";

jest.setTimeout(900_000);

const OLD = RELEASES.find((r) => r.version === "0.2.0")!;
let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "mgmt-init-update-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (cli: string, args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], { cwd: work, encoding: "utf8", env: { ...process.env, CHECKPOINT_DISABLE: "1" } });
const THIS = repoPath("dist", "cli.js");
const text = (repo: string, path: string) => readFileSync(join(repo, path), "utf8");

it("merges this version into a 0.2.0 repository: edits kept, a conflict marked and listed, answers inferred and recorded", () => {
  const old = buildRelease(OLD);
  const repo = join(work, "infra");
  const made = run(join(old.root, "dist", "cli.js"), ["init", repo, "--packages", join(old.root, "dist", "packages")]);
  expect({ status: made.status, stderr: made.stderr }).toEqual({ status: 0, stderr: "" });
  expect(existsSync(join(repo, ".mgmt-init.json"))).toBe(false);

  // The team's edits: a stack of their own in main.ts, a note in the CI file, and the README's upgrade line.
  writeFileSync(join(repo, "main.ts"), text(repo, "main.ts") + "\n// The team's own stacks go below.\n");
  writeFileSync(join(repo, ".github/workflows/plan.yml"), "# Reviewed by the platform team.\n" + text(repo, ".github/workflows/plan.yml"));
  const readme = text(repo, "README.md");
  const upgradeLine = readme.split("\n").find((l) => l.startsWith("- **Upgrade:**"))!;
  writeFileSync(join(repo, "README.md"), readme.replace(upgradeLine, "- **Upgrade:** ask the platform team first."));

  const r = run(THIS, ["init", "--update", repo, "--packages", repoPath("dist", "packages")]);
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain(
    `no .mgmt-init.json: inferred from package.json and the files here that this repository was made by mgmt init 0.2.0 with --cdk cdktf --engine tofu --backend local --ci github,gitlab (packages vendored)`,
  );
  expect(r.stdout).toContain(`mgmt init --update: 0.2.0 -> ${PROVIDER_VERSION}`);
  expect(r.stdout).toMatch(/^ {2}added {5}\.mgmt-init\.json$/m);
  expect(r.stdout).toMatch(/^ {2}conflict {2}README\.md \(1 conflict\(s\) marked\)$/m);
  expect(r.stdout).toContain("conflicts, marked <<<<<<< ======= >>>>>>> in: README.md");
  expect(r.status).toBe(1);

  // The conflict, marked with both sides named.
  expect(text(repo, "README.md")).toMatch(
    new RegExp(
      `<<<<<<< this repository\n- \\*\\*Upgrade:\\*\\* ask the platform team first\\.\n[\\s\\S]*=======\n[\\s\\S]*>>>>>>> mgmt init ${PROVIDER_VERSION.replace(/\./g, "\\.")}`,
    ),
  );
  // The team's edits kept, this version's dependencies in.
  expect(text(repo, "main.ts")).toContain("// The team's own stacks go below.");
  expect(text(repo, ".github/workflows/plan.yml").startsWith("# Reviewed by the platform team.\n")).toBe(true);
  const manifest = JSON.parse(text(repo, "package.json")) as { dependencies: Record<string, string> };
  expect(manifest.dependencies).toMatchObject({
    "@mgmt/provider": `file:packages/mgmt-provider-${PROVIDER_VERSION}.tgz`,
    "@mgmt/cdktf-provider-mgmt": `file:packages/mgmt-cdktf-provider-mgmt-${PROVIDER_VERSION}.tgz`,
  });
  expect(JSON.parse(text(repo, ".mgmt-init.json"))).toMatchObject({
    version: PROVIDER_VERSION,
    cdk: "cdktf",
    engine: "tofu",
    backend: "local",
    vendored: true,
  });
  // The projectId 0.2.0 drew is the repository's own, not a conflict.
  expect(text(repo, "cdktf.json")).not.toContain("<<<<<<<");
});

it("updates a repository this version wrote to nothing, from its answers file", () => {
  const repo = join(work, "fresh");
  expect(run(THIS, ["init", repo, "--packages", repoPath("dist", "packages"), "--backend", "pg"]).status).toBe(0);
  const r = run(THIS, ["init", "--update", repo, "--packages", repoPath("dist", "packages")]);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
  expect(r.stdout).not.toContain("inferred");
  expect(r.stdout).toContain("nothing to change");
});

it("refuses options that the answers file decides", () => {
  const r = run(THIS, ["init", "--update", join(work, "fresh"), "--engine", "terraform"]);
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/--update takes its options from the repository's \.mgmt-init\.json, not --engine/);
});
