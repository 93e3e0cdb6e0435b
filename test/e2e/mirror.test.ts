/** @tier engine */
/**
 * The provider package is portable: the mirror the build writes holds a relative launcher and the
 * bundles beside it, so two builds in different checkouts give engines the same package hash,
 * and a copy works wherever it is.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AUTOMATION_ENV, availableEngines, engineEnvironment, runEngine } from "../../src/harness/engine";
import { repoPath, repoRoot } from "../../src/harness/paths";
import { runProcess } from "../../src/harness/process";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../../src/provider/identity";

jest.setTimeout(120_000);

const tofu = availableEngines().find((e) => e.name === "tofu")!;
let server: RunningServer;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startServe();
});
afterAll(async () => {
  await server.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
const lockHashes = (lock: string): string[] => [...lock.matchAll(/"(h1:[^"]+)"/g)].map((m) => m[1]!);

async function run(binary: string, args: string[], cwd?: string): Promise<string> {
  const r = await runProcess(binary, args, { cwd });
  expect({ command: [binary, ...args].join(" "), code: r.code, stderr: r.code === 0 ? "" : r.stderr }).toEqual({
    command: [binary, ...args].join(" "),
    code: 0,
    stderr: "",
  });
  return r.stdout;
}

/**
 * A clone of `commit` in a new temporary folder, built as far as the provider package, with
 * node_modules linked from this repo rather than installed. (esbuild follows that link and names
 * the modules by their path from the checkout, which is the same for two folders of one depth.)
 */
async function buildCheckout(commit: string): Promise<string> {
  const checkout = join(tempDir("mgmt-mirror-checkout-"), "repo");
  await run("git", ["clone", "--quiet", "--shared", "--no-checkout", repoRoot(), checkout]);
  await run("git", ["-C", checkout, "checkout", "--quiet", "--detach", commit]);
  symlinkSync(repoPath("node_modules"), join(checkout, "node_modules"));
  await run(process.execPath, ["scripts/build.mjs", "--mirror-only"], checkout);
  return join(checkout, "dist", "mirror");
}

/** The hashes `tofu providers lock` records for the provider from a filesystem mirror. */
async function hashesFromMirror(mirror: string): Promise<string[]> {
  const project = tempDir("mgmt-mirror-lock-");
  writeFileSync(
    join(project, "versions.tf.json"),
    JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE, version: PROVIDER_VERSION } } } }),
  );
  const lock = await runEngine(tofu, ["providers", "lock", `-fs-mirror=${mirror}`, PROVIDER_SOURCE], project, {
    ...process.env,
    ...AUTOMATION_ENV,
    TF_CLI_CONFIG_FILE: "/dev/null",
  });
  expect({ code: lock.code, stderr: lock.stderr }).toEqual({ code: 0, stderr: "" });
  return lockHashes(readFileSync(join(project, ".terraform.lock.hcl"), "utf8"));
}

/** Copies dist/mirror somewhere new, inits a project against the copy, and returns the lock file's hashes and a plan's output. */
async function initFromCopy(): Promise<{ hashes: string[]; plan: string }> {
  const place = tempDir("mgmt-mirror-copy-");
  cpSync(repoPath("dist", "mirror"), join(place, "mirror"), { recursive: true });
  const project = join(place, "project");
  cpSync(repoPath("examples", "provider"), project, { recursive: true });
  writeFileSync(
    join(project, "versions.tf.json"),
    JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE, version: PROVIDER_VERSION } } } }),
  );
  writeFileSync(
    join(project, "profile.tf.json"),
    JSON.stringify({ data: { mgmt_profile: { me: {} } }, output: { user: { value: "${data.mgmt_profile.me.username}" } } }),
  );
  // provider.tf from the examples declares required_providers too; the JSON file carries the version.
  writeFileSync(join(project, "provider.tf"), readFileSync(join(project, "provider.tf"), "utf8").replace(/terraform \{[\s\S]*?\n\}\n/, ""));
  const [host] = PROVIDER_SOURCE.split("/");
  const cliConfig = join(place, "tfrc");
  writeFileSync(
    cliConfig,
    `provider_installation {\n  filesystem_mirror {\n    path = "${join(place, "mirror")}"\n    include = ["${host}/*/*"]\n  }\n  direct { exclude = ["${host}/*/*"] }\n}\n`,
  );
  const env = engineEnvironment({ cliConfig, url: server.url, token: server.token });
  const init = await runEngine(tofu, ["init", "-no-color"], project, env);
  expect({ code: init.code, stderr: init.stderr }).toEqual({ code: 0, stderr: "" });
  const lock = readFileSync(join(project, ".terraform.lock.hcl"), "utf8");
  const plan = await runEngine(tofu, ["plan", "-no-color"], project, env);
  expect(plan.code).toBe(0);
  return { hashes: lockHashes(lock), plan: plan.stdout };
}

describe("the provider package", () => {
  it("holds no absolute path: a relative launcher and the bundles beside it, the same bytes for every platform", () => {
    const platformDir = join(repoPath("dist", "mirror"), PROVIDER_SOURCE, PROVIDER_VERSION);
    const platforms = readdirSync(platformDir).sort();
    expect(platforms).toEqual(["darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"]);
    const files = readdirSync(join(platformDir, platforms[0]!)).sort();
    expect(files).toEqual([
      "calls.js",
      "plugin-main.js",
      "plugin.js",
      "provider.js",
      "schema-response.bin",
      "services.js",
      "shared-host.js",
      "terraform-provider-mgmt",
      "undici.js",
      "warm.js",
      "zod.js",
    ]);
    const launcher = readFileSync(join(platformDir, platforms[0]!, "terraform-provider-mgmt"), "utf8");
    expect(launcher).toMatch(/^#!\/bin\/sh\n/);
    expect(launcher).toMatch(/\nexec node "\$dir\/plugin\.js" "\$@"\n$/);
    expect(launcher).not.toContain(repoRoot());
    for (const platform of platforms.slice(1)) {
      expect(readdirSync(join(platformDir, platform)).sort()).toEqual(files);
      for (const file of files) expect(readFileSync(join(platformDir, platform, file)).equals(readFileSync(join(platformDir, platforms[0]!, file)))).toBe(true);
    }
  });

  it("gives the same package hash from two places, and works from either", async () => {
    const a = await initFromCopy();
    const b = await initFromCopy();
    expect(a.hashes.length).toBeGreaterThan(0);
    expect(b.hashes).toEqual(a.hashes);
    expect(a.plan).toMatch(/user = "admin"/);
  });

  it("gets the same h1: hash when built in two different checkouts of one commit", async () => {
    // Clones of HEAD, not the working tree, so both builds see the same sources.
    const commit = (await run("git", ["-C", repoRoot(), "rev-parse", "HEAD"])).trim();
    const [a, b] = await Promise.all([buildCheckout(commit), buildCheckout(commit)]);
    const [hashesA, hashesB] = await Promise.all([hashesFromMirror(a), hashesFromMirror(b)]);
    expect(hashesA).toHaveLength(1);
    expect(hashesB).toEqual(hashesA);
  });
});
