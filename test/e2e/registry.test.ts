/** @tier npm */
/**
 * The packages published to a real npm registry and taken from it by name: Verdaccio on loopback
 * (src/harness/registry.ts) receives the release builds of every release (src/harness/release-build.ts, made
 * once per checkout) and this build's three tarballs, with plain `npm publish`. From an empty folder whose
 * .npmrc names the registry for the @mgmt scope, `npx @mgmt/provider init infra` writes a repository that
 * depends on the provider and its bindings by name and range; `npm install` takes them from the registry,
 * `npx mgmt install-provider` installs the provider and the repository's own `npm test` passes.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { buildRelease } from "../../src/harness/release-build";
import { startRegistry, type Registry } from "../../src/harness/registry";
import { RELEASES } from "../../src/harness/releases";
import { repoPath } from "../../src/harness/paths";
import { PROVIDER_VERSION } from "../../src/provider/identity";
import { availableEngines } from "../../src/harness/engine";
import { ENGINE_COMMAND, expectNoChanges, expectOwnTestsPass, teamRepoWork, type TeamRepoWork } from "./team-repo-setup";

jest.setTimeout(1_800_000);

const RANGE = `~${PROVIDER_VERSION}`;
let w: TeamRepoWork;
let registry: Registry;

/** Every tarball a build wrote. */
const tarballs = (root: string): string[] =>
  readdirSync(join(root, "dist", "packages"))
    .filter((f) => f.endsWith(".tgz"))
    .map((f) => join(root, "dist", "packages", f));

beforeAll(async () => {
  w = teamRepoWork("mgmt-registry-");
  registry = await startRegistry(join(w.work, "registry"));
  // Each package's versions in order, oldest first (the last published is its `latest`); the packages side by side.
  const chains = new Map<string, string[]>();
  for (const root of [...RELEASES.map((release) => buildRelease(release).root), repoPath()])
    for (const file of tarballs(root)) {
      const name = basename(file).replace(/-\d+\.\d+\.\d+[^/]*\.tgz$/, "");
      chains.set(name, [...(chains.get(name) ?? []), file]);
    }
  await Promise.all(
    [...chains.values()].map(async (files) => {
      for (const file of files) await registry.publish(file);
    }),
  );
});
afterAll(async () => {
  await registry?.stop();
  await w?.cleanUp();
});

/** A folder of a person's whose .npmrc takes the @mgmt scope from the registry. */
function folder(name: string): string {
  const dir = join(w.work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, ".npmrc"), registry.npmrc);
  return dir;
}

const view = (what: string, dir: string) => JSON.parse(w.ok("npm", ["view", what, "--json"], dir)) as unknown;

it("serves every release and this build by name, the newest as latest, the bindings pinned to their provider", () => {
  const dir = folder("viewer");
  const versions = [...RELEASES.map((r) => r.version), PROVIDER_VERSION];
  expect(view("@mgmt/provider", dir)).toMatchObject({ versions, "dist-tags": { latest: PROVIDER_VERSION } });
  expect(view("@mgmt/cdktf-provider-mgmt", dir)).toMatchObject({ versions, "dist-tags": { latest: PROVIDER_VERSION } });
  expect(view(`@mgmt/cdktf-provider-mgmt@${PROVIDER_VERSION}`, dir)).toMatchObject({ peerDependencies: { "@mgmt/provider": PROVIDER_VERSION } });
  const manifest = view(`@mgmt/provider@${PROVIDER_VERSION}`, dir) as { dependencies: Record<string, string>; publishConfig?: unknown };
  // Nothing a registry cannot resolve: no file:, link: or workspace paths.
  expect(Object.values(manifest.dependencies).filter((range) => /^(file|link|workspace):|^\.|\//.test(range))).toEqual([]);
});

it("refuses to install bindings beside a provider of another version", () => {
  const dir = folder("mismatch");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "mismatch", version: "0.0.0", private: true }));
  const r = w.sh(
    "npm",
    [
      "install",
      "--dry-run",
      "--prefer-offline",
      "--ignore-scripts",
      `@mgmt/provider@${RELEASES.at(-1)!.version}`,
      `@mgmt/cdktf-provider-mgmt@${PROVIDER_VERSION}`,
    ],
    dir,
  );
  expect(r.code).not.toBe(0);
  expect(r.out).toMatch(/ERESOLVE/);
});

it("scaffolds with `npx @mgmt/provider init infra`, installs by name and range from the registry, and passes its own npm test", () => {
  const empty = folder("downloads");
  const init = w.ok("npx", ["--yes", "@mgmt/provider", "init", "infra"], empty);
  expect(init).toContain(`into ${join(empty, "infra")}`);
  const infra = join(empty, "infra");
  const manifest = JSON.parse(readFileSync(join(infra, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  expect(manifest.dependencies).toMatchObject({ "@mgmt/provider": RANGE, "@mgmt/cdktf-provider-mgmt": RANGE });
  expect(readdirSync(infra)).not.toContain("packages");

  // The team's .npmrc, committed beside package.json, names the registry for the scope.
  copyFileSync(join(empty, ".npmrc"), join(infra, ".npmrc"));
  w.ok("npm", ["install", "--prefer-offline"], infra);
  // This build's very tarballs, by the integrity the registry gave: not an older release the range would not admit.
  const lock = JSON.parse(readFileSync(join(infra, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string; integrity: string }> };
  const integrity = (tarball: string) =>
    `sha512-${createHash("sha512")
      .update(readFileSync(repoPath("dist", "packages", tarball)))
      .digest("base64")}`;
  expect(lock.packages["node_modules/@mgmt/provider"]).toMatchObject({
    version: PROVIDER_VERSION,
    integrity: integrity(`mgmt-provider-${PROVIDER_VERSION}.tgz`),
  });
  expect(lock.packages["node_modules/@mgmt/cdktf-provider-mgmt"]).toMatchObject({
    version: PROVIDER_VERSION,
    integrity: integrity(`mgmt-cdktf-provider-mgmt-${PROVIDER_VERSION}.tgz`),
  });
  expect(w.ok("npx", ["mgmt", "install-provider"], infra)).toContain(`${PROVIDER_VERSION} into`);
  expectOwnTestsPass(w, infra);
});

it("moves a repository 0.2.0 made (vendored) to the registry with `npx @mgmt/provider init --update`, keeping its edits", () => {
  const old = buildRelease(RELEASES.find((r) => r.version === "0.2.0")!);
  const repo = join(w.work, "old-infra");
  w.ok(process.execPath, [join(old.root, "dist", "cli.js"), "init", repo, "--packages", join(old.root, "dist", "packages")], w.work);
  writeFileSync(join(repo, ".npmrc"), registry.npmrc);
  writeFileSync(join(repo, "main.ts"), readFileSync(join(repo, "main.ts"), "utf8") + "\n// The team's own note.\n");

  const out = w.ok("npx", ["--yes", `@mgmt/provider@${PROVIDER_VERSION}`, "init", "--update"], repo);
  expect(out).toContain("inferred from package.json");
  expect(out).toContain(`mgmt init --update: 0.2.0 -> ${PROVIDER_VERSION}`);
  expect(out).toMatch(/^ {2}kept {6}packages\/mgmt-provider-0\.2\.0\.tgz \(no longer used: git rm it\)$/m);
  const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  expect(manifest.dependencies).toMatchObject({ "@mgmt/provider": RANGE, "@mgmt/cdktf-provider-mgmt": RANGE });
  expect(readFileSync(join(repo, "main.ts"), "utf8")).toContain("// The team's own note.");
  expect(JSON.parse(readFileSync(join(repo, ".mgmt-init.json"), "utf8"))).toMatchObject({ version: PROVIDER_VERSION, vendored: false });

  w.ok("npm", ["install", "--prefer-offline"], repo);
  expect(w.ok("npx", ["mgmt", "install-provider"], repo)).toContain(`${PROVIDER_VERSION} into`);
  expectOwnTestsPass(w, repo);
});

// Upgraded by version: a repository 0.2.0 made and deployed, moved to the registry by this version's
// `init --update`, installed, its provider installed, the engine's `init -upgrade`: a plan with no changes.
describe.each(availableEngines().map((e) => e.name))("%s: a deployed 0.2.0 repository", (engine) => {
  it("plans no changes after init --update, npm install, install-provider and init -upgrade", async () => {
    const old = buildRelease(RELEASES.find((r) => r.version === "0.2.0")!);
    const repo = join(w.work, `deployed-${engine}`);
    const flags = engine === "terraform" ? ["--engine", "terraform"] : [];
    w.ok(process.execPath, [join(old.root, "dist", "cli.js"), "init", repo, "--packages", join(old.root, "dist", "packages"), ...flags], w.work);
    writeFileSync(join(repo, ".npmrc"), registry.npmrc);
    const server = await w.serve();
    const env = w.withApi(server);
    w.ok("npm", ["install", "--prefer-offline"], repo);
    expect(w.ok("npx", ["mgmt", "install-provider"], repo)).toContain("0.2.0 into");
    w.ok("npm", ["run", "deploy"], repo, env);

    w.ok("npx", ["--yes", `@mgmt/provider@${PROVIDER_VERSION}`, "init", "--update"], repo);
    w.ok("npm", ["install", "--prefer-offline"], repo);
    const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string }> };
    expect(lock.packages["node_modules/@mgmt/provider"]!.version).toBe(PROVIDER_VERSION);
    expect(w.ok("npx", ["mgmt", "install-provider"], repo)).toContain(`${PROVIDER_VERSION} into`);
    w.ok("npm", ["run", "synth"], repo, env);
    const stackDir = join(repo, "cdktf.out", "stacks", "account");
    const [command, ...args] = ENGINE_COMMAND[engine];
    expect(w.ok(command, [...args, "init", "-upgrade", "-no-color", "-input=false"], stackDir, env)).toContain(PROVIDER_VERSION);
    expectNoChanges(w, engine, stackDir, env);
  });
});
