/**
 * The two npm packages as a team's repository takes them: both tarballs from dist/packages
 * installed into a project outside this checkout, with better-sqlite3 beside them (once for the
 * file; its addon comes from test/support/addon-prebuild.ts, as it would from its releases), every command run from
 * node_modules, and a lock file made from the package's own mirror for four platforms, which both
 * engines accept and a plan runs with (against the package's `mgmt serve`, and under its
 * `mgmt serve --ephemeral`). And the provider tarball alone, through npx in an empty folder, scaffolding a
 * repository with `mgmt init` and compiling nothing.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { AUTOMATION_ENV, availableEngines, runEngine, type Engine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { usePrebuiltAddon } from "../support/addon-prebuild";
import { runProcess, type ProcessResult } from "../../src/harness/process";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../../src/provider/identity";
import { readManifest } from "../../src/cli/init/tarball";

jest.setTimeout(180_000);

const PLATFORMS = ["linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"];
const engines = availableEngines();
const tofu = engines.find((e) => e.name === "tofu")!;
const terraform = engines.find((e) => e.name === "terraform");
/** Terraform where there is one, as the task a team runs on a laptop; OpenTofu's `providers lock` takes the same flags. */
const locker: Engine = terraform ?? tofu;

const work = mkdtempSync(join(tmpdir(), "mgmt-packages-"));
const project = join(work, "team-repo");
const { TF_CLI_CONFIG_FILE: _ignored, ...cleanEnv } = process.env;
/** A shell of a team's repository: no TF_CLI_CONFIG_FILE of this repo's tests, OpenTofu on PATH (as `mgmt drift` expects). */
const env: NodeJS.ProcessEnv = {
  ...cleanEnv,
  ...AUTOMATION_ENV,
  HOME: join(work, "home"),
  PATH: `${dirname(tofu.binary)}${delimiter}${process.env.PATH ?? ""}`,
  npm_config_nodedir: "/usr",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
const tarball = (name: string) => repoPath("dist", "packages", `${name}-${PROVIDER_VERSION}.tgz`);
const installed = (...parts: string[]) => join(project, "node_modules", "@mgmt", "provider", ...parts);

let server: RunningServer;
beforeAll(async () => {
  mkdirSync(project, { recursive: true });
  usePrebuiltAddon(env.HOME!);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "team-repo", private: true }));
  // better-sqlite3 beside them, as a repository from `mgmt init` lists it: the provider package takes it as an optional peer.
  const sqlite = `better-sqlite3@${(JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies["better-sqlite3"]}`;
  const install = await runProcess("npm", ["install", "--prefer-offline", tarball("mgmt-provider"), tarball("mgmt-cdktf-provider-mgmt"), sqlite], {
    cwd: project,
    env,
  });
  expect({ code: install.code, stderr: install.code === 0 ? "" : install.stderr }).toEqual({ code: 0, stderr: "" });
  // The installed package's own server, on the better-sqlite3 npm just installed.
  server = await startServe(["--port", "0", "--db", ":memory:"], env, installed("dist", "cli.js"));
}, 900_000);
afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** `npx mgmt ARGS` in `cwd` (the project unless told), never fetching anything. */
const mgmt = (args: string[], cwd = project, input?: string): Promise<ProcessResult> => runProcess("npx", ["--no", "mgmt", ...args], { cwd, env, input });

function ok(r: ProcessResult, what: string): string {
  expect({ what, code: r.code, stderr: r.code === 0 ? "" : r.stderr }).toEqual({ what, code: 0, stderr: "" });
  return r.stdout;
}
const lockHashes = (lock: string): string[] => [...lock.matchAll(/"(h1:[^"]+)"/g)].map((m) => m[1]!);

describe("the @mgmt/provider and @mgmt/cdktf-provider-mgmt tarballs, installed", () => {
  it("carry their names, versions and dependencies as npm reads them", () => {
    const provider = JSON.parse(readFileSync(installed("package.json"), "utf8")) as Record<string, unknown>;
    const root = JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(provider).toMatchObject({
      name: "@mgmt/provider",
      version: PROVIDER_VERSION,
      bin: { mgmt: "bin/mgmt" },
      dependencies: { pg: root.dependencies.pg },
      peerDependencies: { "better-sqlite3": root.dependencies["better-sqlite3"] },
      peerDependenciesMeta: { "better-sqlite3": { optional: true } },
    });
    expect(provider.dependencies).not.toHaveProperty("better-sqlite3");
    const bindings = JSON.parse(readFileSync(join(project, "node_modules", "@mgmt", "cdktf-provider-mgmt", "package.json"), "utf8")) as Record<string, unknown>;
    expect(bindings).toMatchObject({
      name: "@mgmt/cdktf-provider-mgmt",
      version: PROVIDER_VERSION,
      peerDependencies: { "@mgmt/provider": PROVIDER_VERSION },
      cdktf: { provider: { name: PROVIDER_SOURCE, version: PROVIDER_VERSION } },
    });
  });

  it("runs mgmt's commands from node_modules: version, schema, docs, serve", async () => {
    expect(JSON.parse(ok(await mgmt(["version"]), "version"))).toEqual({ version: PROVIDER_VERSION, provider_source: PROVIDER_SOURCE });
    const schema = JSON.parse(ok(await mgmt(["schema"]), "schema")) as { provider_schemas: Record<string, { resource_schemas: object }> };
    expect(Object.keys(schema.provider_schemas[PROVIDER_SOURCE]!.resource_schemas)).toContain("mgmt_ssh_key");
    // Every page finds its example inside the package: nothing reported missing.
    const docs = await mgmt(["docs", join(work, "docs")]);
    expect({ code: docs.code, stderr: docs.stderr }).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(join(work, "docs", "resources", "ssh_key.md"), "utf8")).toContain('resource "mgmt_ssh_key"');
    const profile = await fetch(`${server.url}/profile`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(profile.status).toBe(200);
  });

  it("installs the provider from inside its own package, whatever the current folder", async () => {
    const elsewhere = mkdtempSync(join(work, "elsewhere-"));
    const printed = ok(
      await runProcess(join(project, "node_modules", ".bin", "mgmt"), ["install-provider", "--print-mirror"], { cwd: elsewhere, env }),
      "--print-mirror",
    );
    expect(realpathSync(printed.trim())).toBe(realpathSync(installed("dist", "mirror")));
    const dir = join(work, "mirror");
    const out = ok(await runProcess(join(project, "node_modules", ".bin", "mgmt"), ["install-provider", "--dir", dir], { cwd: elsewhere, env }), "--dir");
    expect(out).toContain(`installed ${PROVIDER_SOURCE} ${PROVIDER_VERSION} into ${dir}`);
    for (const platform of PLATFORMS) {
      const launcher = join(dir, PROVIDER_SOURCE, PROVIDER_VERSION, platform, "terraform-provider-mgmt");
      expect(readFileSync(launcher, "utf8")).toMatch(/^#!\/bin\/sh\n/);
    }
  });

  it("locks all four platforms from the package's mirror with one h1 (the same bytes), and both engines init and plan with that lock", async () => {
    const mirror = ok(await mgmt(["install-provider", "--print-mirror"]), "--print-mirror").trim();
    const stack = join(work, "stack");
    mkdirSync(stack);
    writeFileSync(
      join(stack, "main.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE, version: PROVIDER_VERSION } } },
        provider: { mgmt: {} },
        data: { mgmt_profile: { me: {} } },
        resource: { mgmt_tag: { team: { label: "team" } } },
        output: { user: { value: "${data.mgmt_profile.me.username}" } },
      }),
    );
    const lockFile = join(stack, ".terraform.lock.hcl");
    const lock = async (platforms: string[]): Promise<string[]> => {
      rmSync(lockFile, { force: true });
      const r = await runEngine(locker, ["providers", "lock", `-fs-mirror=${mirror}`, ...platforms.map((p) => `-platform=${p}`), PROVIDER_SOURCE], stack, {
        ...env,
        TF_CLI_CONFIG_FILE: "/dev/null",
      });
      expect({ platforms, code: r.code, stderr: r.stderr }).toEqual({ platforms, code: 0, stderr: "" });
      return lockHashes(readFileSync(lockFile, "utf8"));
    };
    // Each platform folder on its own: one h1 each, and the same one, since the bytes are the same.
    const each: string[][] = [];
    for (const platform of PLATFORMS) each.push(await lock([platform]));
    expect(each.map((hashes) => hashes.length)).toEqual([1, 1, 1, 1]);
    expect(new Set(each.flat()).size).toBe(1);
    // All four at once: the lock holds that hash, which stands for every platform.
    expect(await lock(PLATFORMS)).toEqual(each[0]);
    const locked = readFileSync(lockFile, "utf8");

    // The engines install from the mirror install-provider wrote, through the block it printed.
    const dir = join(work, "mirror-for-init");
    const printed = ok(await mgmt(["install-provider", "--dir", dir]), "install-provider --dir");
    const cliConfig = join(work, "team.tfrc");
    writeFileSync(cliConfig, printed.slice(printed.indexOf("provider_installation")));
    const engineEnv = { ...env, TF_CLI_CONFIG_FILE: cliConfig, MGMT_URL: server.url, MGMT_TOKEN: server.token };
    for (const engine of [tofu, ...(terraform ? [terraform] : [])]) {
      rmSync(join(stack, ".terraform"), { recursive: true, force: true });
      const init = await runEngine(engine, ["init", "-no-color", "-lockfile=readonly"], stack, engineEnv);
      expect({ engine: engine.name, code: init.code, stderr: init.stderr }).toEqual({ engine: engine.name, code: 0, stderr: "" });
      expect(readFileSync(lockFile, "utf8")).toBe(locked);
    }
    rmSync(join(stack, ".terraform"), { recursive: true, force: true });
    ok(await runEngine(tofu, ["init", "-no-color", "-lockfile=readonly"], stack, engineEnv), "tofu init");
    const plan = await runEngine(tofu, ["plan", "-no-color", "-out=plan.bin"], stack, engineEnv);
    expect({ code: plan.code, stderr: plan.stderr }).toEqual({ code: 0, stderr: "" });
    expect(plan.stdout).toMatch(/mgmt_tag\.team will be created/);
    expect(plan.stdout).toMatch(/user = "admin"/);

    // The report commands from the package, on that plan and that stack.
    const shown = ok(await runEngine(tofu, ["show", "-json", "plan.bin"], stack, engineEnv), "show -json");
    const report = ok(await mgmt(["plan-report", "--format", "json"], project, shown), "plan-report");
    expect(JSON.stringify(JSON.parse(report))).toContain("mgmt_tag.team");
    const drift = await runProcess(join(project, "node_modules", ".bin", "mgmt"), ["drift", "--dir", stack, "--format", "json"], {
      cwd: stack,
      env: engineEnv,
    });
    expect({ code: drift.code, stderr: drift.stderr }).toEqual({ code: 0, stderr: "" });

    // The same plan the tflocal way: the package's own server for one command, gone afterwards.
    const { MGMT_URL: _url, MGMT_TOKEN: _token, ...withoutServer } = engineEnv;
    const once = await runProcess(
      "npx",
      ["--no", "mgmt", "serve", "--ephemeral", "--no-default-fixtures", "--", tofu.binary, `-chdir=${stack}`, "plan", "-no-color"],
      {
        cwd: project,
        env: withoutServer,
      },
    );
    expect({ code: once.code, stderr: once.stderr }).toEqual({ code: 0, stderr: "" });
    expect(once.stdout).toMatch(/user = "admin"/);
  });
});

describe("the @mgmt/provider tarball alone, through npx", () => {
  /** Every file under `dir`, relative, with `/`. */
  const filesUnder = (dir: string, rel = ""): string[] =>
    readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? filesUnder(dir, rel ? `${rel}/${e.name}` : e.name) : [rel ? `${rel}/${e.name}` : e.name],
    );

  it("scaffolds a vendored repository with the documented command, outside any project, with no --packages, compiling nothing", async () => {
    const here = mkdtempSync(join(work, "npx-"));
    const empty = join(here, "downloads");
    const prefix = join(here, "prefix");
    mkdirSync(empty);
    mkdirSync(prefix);
    const file = `mgmt-provider-${PROVIDER_VERSION}.tgz`;
    copyFileSync(tarball("mgmt-provider"), join(empty, file));
    // The machine's npm cache (what a person has), an empty global prefix, no project above: one install, of the tarball.
    const npmCache = (await runProcess("npm", ["config", "get", "cache"], { env: cleanEnv })).stdout.trim();
    const npxEnv = { ...env, npm_config_prefix: prefix, npm_config_cache: npmCache };
    // docs/guides/install.md's command, as written there.
    const init = await runProcess("npx", ["--yes", "--package", `./${file}`, "mgmt", "init", "../infra", "--vendor"], { cwd: empty, env: npxEnv });
    expect({ code: init.code, stderr: init.stderr }).toEqual({ code: 0, stderr: "" });
    expect(init.stdout).toContain(`into ${join(here, "infra")}`);

    // Where npx installed it: the _npx folder whose manifest names this very tarball.
    const npxRoot = join(npmCache, "_npx");
    const tree = readdirSync(npxRoot)
      .map((d) => join(npxRoot, d))
      .find((d) => existsSync(join(d, "package.json")) && readFileSync(join(d, "package.json"), "utf8").includes(join(empty, file)));
    expect(tree).toBeDefined();
    const installedFiles = filesUnder(join(tree!, "node_modules"));
    expect(installedFiles).toContain("@mgmt/provider/dist/packages/mgmt-cdktf-provider-mgmt-" + PROVIDER_VERSION + ".tgz");
    // No native build: better-sqlite3 (an optional peer) is not installed, and no addon was compiled.
    expect(installedFiles.filter((f) => f.startsWith("better-sqlite3/") || f.includes("/build/Release/") || f.endsWith(".node"))).toEqual([]);

    // The repository vendors the provider (the installed package, packed again) and the cdktf bindings it carried.
    const infra = join(here, "infra");
    const manifest = JSON.parse(readFileSync(join(infra, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(manifest.dependencies).toMatchObject({
      "@mgmt/provider": `file:packages/mgmt-provider-${PROVIDER_VERSION}.tgz`,
      "@mgmt/cdktf-provider-mgmt": `file:packages/mgmt-cdktf-provider-mgmt-${PROVIDER_VERSION}.tgz`,
    });
    const root = JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(manifest.devDependencies!["better-sqlite3"]).toBe(root.dependencies["better-sqlite3"]);
    const vendored = join(infra, "packages", `mgmt-provider-${PROVIDER_VERSION}.tgz`);
    expect(readManifest(vendored)).toEqual({ name: "@mgmt/provider", version: PROVIDER_VERSION });
    const listed = (await runProcess("tar", ["-tvzf", vendored], { env })).stdout;
    expect(listed).toMatch(/^-rwxr-xr-x .* package\/bin\/mgmt$/m);
    expect(listed).toMatch(new RegExp(`^-rwxr-xr-x .* package/dist/mirror/${PROVIDER_SOURCE}/${PROVIDER_VERSION}/linux_amd64/terraform-provider-mgmt$`, "m"));
    expect(listed).not.toMatch(/package\/(node_modules|dist\/packages)\//);
    expect(statSync(join(infra, "packages", `mgmt-cdktf-provider-mgmt-${PROVIDER_VERSION}.tgz`)).size).toBeGreaterThan(0);

    // mgmt serve is the one command that needs the addon, and says which package to install.
    const serve = await runProcess(join(tree!, "node_modules", ".bin", "mgmt"), ["serve", "--port", "0", "--db", ":memory:"], { cwd: here, env: npxEnv });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(
      /^mgmt serve: the SQLite store needs the better-sqlite3 package, which is not installed: .*npm install --save-dev better-sqlite3/,
    );
  });
});
