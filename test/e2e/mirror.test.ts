/**
 * The provider package is portable: the mirror the build writes holds a relative launcher and the
 * bundles beside it, so two copies in different places give engines the same package hash, and
 * a copy works wherever it is.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableEngines, engineEnvironment, runEngine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
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

/** Copies dist/mirror somewhere new, inits a project against the copy, and returns the lock file's hashes and a plan's output. */
async function initFromCopy(): Promise<{ hashes: string[]; plan: string }> {
  const place = mkdtempSync(join(tmpdir(), "mgmt-mirror-copy-"));
  dirs.push(place);
  cpSync(repoPath("dist", "mirror"), join(place, "mirror"), { recursive: true });
  const project = join(place, "project");
  cpSync(repoPath("examples", "provider"), project, { recursive: true });
  writeFileSync(join(project, "versions.tf.json"), JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE, version: PROVIDER_VERSION } } } }));
  writeFileSync(join(project, "profile.tf.json"), JSON.stringify({ data: { mgmt_profile: { me: {} } }, output: { user: { value: "${data.mgmt_profile.me.username}" } } }));
  // provider.tf from the examples declares required_providers too; the JSON file carries the version.
  writeFileSync(join(project, "provider.tf"), readFileSync(join(project, "provider.tf"), "utf8").replace(/terraform \{[\s\S]*?\n\}\n/, ""));
  const [host] = PROVIDER_SOURCE.split("/");
  const cliConfig = join(place, "tfrc");
  writeFileSync(cliConfig, `provider_installation {\n  filesystem_mirror {\n    path = "${join(place, "mirror")}"\n    include = ["${host}/*/*"]\n  }\n  direct { exclude = ["${host}/*/*"] }\n}\n`);
  const env = engineEnvironment({ cliConfig, url: server.url, token: server.token });
  const init = await runEngine(tofu, ["init", "-no-color"], project, env);
  expect({ code: init.code, stderr: init.stderr }).toEqual({ code: 0, stderr: "" });
  const lock = readFileSync(join(project, ".terraform.lock.hcl"), "utf8");
  const plan = await runEngine(tofu, ["plan", "-no-color"], project, env);
  expect(plan.code).toBe(0);
  return { hashes: [...lock.matchAll(/"(h1:[^"]+)"/g)].map((m) => m[1]!), plan: plan.stdout };
}

describe("the provider package", () => {
  it("holds no absolute path: a relative launcher and the bundles beside it", () => {
    const platformDir = join(repoPath("dist", "mirror"), PROVIDER_SOURCE, PROVIDER_VERSION);
    const [platform] = readdirSync(platformDir);
    const files = readdirSync(join(platformDir, platform!)).sort();
    expect(files).toEqual(["plugin.js", "provider.js", "terraform-provider-mgmt"]);
    const launcher = readFileSync(join(platformDir, platform!, "terraform-provider-mgmt"), "utf8");
    expect(launcher).toBe('#!/bin/sh\nexec node "$(dirname "$0")/plugin.js" "$@"\n');
  });

  it("gives the same package hash from two places, and works from either", async () => {
    const a = await initFromCopy();
    const b = await initFromCopy();
    expect(a.hashes.length).toBeGreaterThan(0);
    expect(b.hashes).toEqual(a.hashes);
    expect(a.plan).toMatch(/user = "admin"/);
  });
});
