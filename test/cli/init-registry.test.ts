/**
 * `mgmt init` naming the provider and its bindings on the registry (what an installed @mgmt/provider writes
 * unless told to vendor): package.json asks for them by name and range, the README says where they come from
 * and how to upgrade. The install from a real registry is test/e2e/registry.test.ts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { scaffoldFiles } from "../../src/cli/init/scaffold";
import { dependencyOn, versionRange, type ScaffoldContext } from "../../src/cli/init/templates/context";
import { repoPath } from "../../src/harness/paths";

const byName = (version: string, over: Partial<ScaffoldContext> = {}): ScaffoldContext => ({
  ci: ["github"],
  backend: "local",
  engine: "tofu",
  name: "infra",
  stack: "account",
  provider: { name: "@mgmt/provider", version },
  bindings: { name: "@mgmt/cdktf-provider-mgmt", version },
  ...over,
});

it("asks for this minor's patches before 1.0 and any later release of the major after", () => {
  expect(versionRange("0.3.0")).toBe("~0.3.0");
  expect(versionRange("0.10.2")).toBe("~0.10.2");
  expect(versionRange("1.2.0")).toBe("^1.2.0");
  expect(dependencyOn({ name: "@mgmt/provider", version: "0.3.0", file: "packages/mgmt-provider-0.3.0.tgz" })).toBe("file:packages/mgmt-provider-0.3.0.tgz");
});

it("writes package.json depending on both packages by name and range, and a README that says so", () => {
  const files = scaffoldFiles(byName("0.3.0"));
  const manifest = JSON.parse(files.get("package.json")!.text) as { dependencies: Record<string, string> };
  expect(manifest.dependencies).toMatchObject({ "@mgmt/provider": "~0.3.0", "@mgmt/cdktf-provider-mgmt": "~0.3.0" });
  expect(Object.values(manifest.dependencies).filter((v) => v.includes("packages/"))).toEqual([]);
  const readme = files.get("README.md")!.text;
  expect(readme).toContain("come from the npm registry by version range");
  expect(readme).toContain("npm install @mgmt/provider@<version> @mgmt/cdktf-provider-mgmt@<version>");
  expect(readme).not.toContain("vendored in `packages/`");
});

it("refuses --packages with --vendor, which say the same thing twice", () => {
  const dir = mkdtempSync(join(tmpdir(), "mgmt-init-registry-"));
  try {
    const r = spawnSync(process.execPath, [repoPath("dist", "cli.js"), "init", join(dir, "infra"), "--packages", dir, "--vendor"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^mgmt init: --packages vendors from DIR already: give --packages or --vendor/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("ships Renovate and Dependabot configuration that moves the @mgmt packages in one pull request", () => {
  const files = scaffoldFiles(byName("0.3.0", { ci: ["github", "gitlab"] }));
  const renovate = JSON.parse(files.get("renovate.json")!.text) as { packageRules: Array<{ matchPackageNames: string[]; groupName: string }> };
  expect(renovate.packageRules).toEqual([expect.objectContaining({ matchPackageNames: ["@mgmt/**"], groupName: "mgmt provider" })]);
  const dependabot = parseDocument(files.get(".github/dependabot.yml")!.text).toJS() as { version: number; updates: Array<Record<string, unknown>> };
  expect(dependabot.version).toBe(2);
  expect(dependabot.updates).toEqual([expect.objectContaining({ "package-ecosystem": "npm", directory: "/", groups: { mgmt: { patterns: ["@mgmt/*"] } } })]);
  // Dependabot is GitHub's: a GitLab-only repository has Renovate's alone.
  const gitlab = scaffoldFiles(byName("0.3.0", { ci: ["gitlab"] }));
  expect([gitlab.has("renovate.json"), gitlab.has(".github/dependabot.yml")]).toEqual([true, false]);
});
