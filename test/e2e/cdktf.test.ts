/** @tier engine */
/**
 * The CDK routes to the provider, each deployed against a real `mgmt serve` with the plugin from the
 * build's provider mirror (cdktf writes a version constraint, which dev_overrides cannot satisfy):
 * `cdktf deploy --skip-provider-lock` of examples/basic, as a cdktf user runs it; the same stack on
 * CDK Terrain (examples/cdktn), synthesized by cdktn and applied by each engine as `cdktn deploy`
 * would; and the bindings package (dist/cdktf-bindings) installed offline into a project outside
 * the repository, type-checked, synthesized and applied.
 */
import { lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { build } from "esbuild";
import { MgmtClient } from "../../src/client";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { runProcess } from "../../src/harness/process";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { sshKeyText } from "../../testkit/ssh-keys";

jest.setTimeout(300_000);

const tofu = availableEngines().find((e) => e.name === "tofu")!;

async function run(binary: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const r = await runProcess(binary, args, { cwd, env });
  if (r.code !== 0) throw new Error(`${binary} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Runs a synthesizing program (node ARGS) in DIR; returns the folder of the stack's configuration. */
async function synth(args: string[], dir: string, stack: string): Promise<string> {
  const outdir = join(dir, "cdktf.out");
  await run(process.execPath, args, dir, { ...process.env, CDKTF_OUTDIR: outdir, CHECKPOINT_DISABLE: "1" });
  return join(outdir, "stacks", stack);
}

/** The synthesized configuration without construct metadata and the machine's state path. */
function configuration(stackDir: string): Record<string, unknown> {
  const json = JSON.parse(readFileSync(join(stackDir, "cdk.tf.json"), "utf8"), (key, value: unknown) => (key === "//" ? undefined : value)) as {
    terraform: { backend?: unknown };
  };
  delete json.terraform.backend;
  return json;
}

/** What `cdktf deploy` runs in a synthesized stack folder, run by the engine itself; returns the outputs. */
class StackDir {
  constructor(
    readonly engine: Engine,
    readonly dir: string,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  async ok(command: string, ...args: string[]): Promise<string> {
    const r = await runEngine(this.engine, [command, "-no-color", ...args], this.dir, this.env);
    if (r.code !== 0) throw new Error(`${this.engine.name} ${command} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  }

  async deploy(): Promise<Record<string, string>> {
    await this.ok("init");
    await this.ok("apply", "-auto-approve");
    const outputs = JSON.parse(await this.ok("output", "-json")) as Record<string, { value: string }>;
    return Object.fromEntries(Object.entries(outputs).map(([name, o]) => [name, o.value]));
  }

  destroy(): Promise<string> {
    return this.ok("destroy", "-auto-approve");
  }
}

describe("the CDK routes to the provider", () => {
  let server: RunningServer;
  let client: MgmtClient;
  let work: string;
  let env: NodeJS.ProcessEnv;

  // A fresh server and folder per test: each one starts from the default fixtures (a lived-in account).
  beforeEach(async () => {
    server = await startServe();
    client = new MgmtClient({ url: server.url, token: server.token });
    work = mkdtempSync(join(tmpdir(), "mgmt-cdk-"));
    env = engineEnvironment({ cliConfig: writeCliConfig(work, "mirror"), url: server.url, token: server.token });
  });

  afterEach(async () => {
    await client?.close();
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const labels = async (): Promise<string[]> => {
    const found: string[] = [];
    for await (const key of client.listSshKeys()) found.push(key.label);
    return found.sort();
  };

  describe("examples/basic", () => {
    let before: string[];
    beforeEach(async () => {
      before = await labels();
    });

    /** The stack's objects exist as configured, and no secret is in the synthesized configuration. */
    async function expectDeployed(outputs: Record<string, string>, stackDir: string): Promise<void> {
      const keys = [];
      for await (const key of client.listSshKeys()) keys.push(key);
      expect(keys.map((k) => k.label).sort()).toEqual([...before, "ci-deploy", "laptop"].sort());
      expect(outputs.username).toBe((await client.getProfile()).username);
      expect(keys.map((k) => String(k.id))).toContain(outputs.laptop_key_id);
      const token = await client.getToken(Number(outputs.reporting_token_id));
      expect(token).toMatchObject({ label: "reporting", scopes: "account:read_only events:read_only" });
      // The secrets are sensitive outputs: the value works, and it matches what the API shows of it.
      expect(outputs.reporting_token!.slice(0, 16)).toBe(token.token);
      expect(await client.getOAuthClient(outputs.dashboard_client_id!)).toMatchObject({ label: "Team dashboard" });
      expect(outputs.dashboard_client_secret).toMatch(/\S{16,}/);
      expect(await client.getAccount()).toMatchObject({ email: "billing@example.com", zip: "19106" });
      expect((await client.getProfile()).timezone).toBe("Europe/Berlin");

      const synthesized = readFileSync(join(stackDir, "cdk.tf.json"), "utf8");
      for (const secret of [server.token, outputs.reporting_token!, outputs.dashboard_client_secret!]) expect(synthesized).not.toContain(secret);
    }

    async function expectDestroyed(outputs: Record<string, string>): Promise<void> {
      expect(await labels()).toEqual(before);
      await expect(client.getToken(Number(outputs.reporting_token_id))).rejects.toMatchObject({ status: 404 });
      await expect(client.getOAuthClient(outputs.dashboard_client_id!)).rejects.toMatchObject({ status: 404 });
      // The singletons are forgotten, not changed.
      expect(await client.getAccount()).toMatchObject({ email: "billing@example.com" });
    }

    it("deploys with cdktf deploy and OpenTofu", async () => {
      const cdktfEnv = {
        ...env,
        PATH: `${dirname(tofu.binary)}${delimiter}${process.env.PATH ?? ""}`,
        TERRAFORM_BINARY_NAME: "tofu",
        CI: "1",
        FORCE_COLOR: "0",
      };
      const cdktf = async (...args: string[]) => {
        const r = await runProcess(
          process.execPath,
          [repoPath("node_modules/cdktf-cli/bundle/bin/cdktf"), ...args, "--skip-provider-lock", "--auto-approve", "--no-color"],
          { cwd: work, env: cdktfEnv },
        );
        expect({ code: r.code, output: r.code === 0 ? "" : r.stdout + r.stderr }).toEqual({ code: 0, output: "" });
      };
      // A project folder of its own, as a user has: cdktf.json there, state written there.
      const app = `node ${repoPath("scripts/run-ts.mjs")} ${repoPath("examples/basic/main.ts")}`;
      writeFileSync(join(work, "cdktf.json"), JSON.stringify({ language: "typescript", app, output: "cdktf.out", sendCrashReports: "false" }));
      const outputsFile = join(work, "outputs.json");

      await cdktf("deploy", "basic", "--outputs-file", outputsFile, "--outputs-file-include-sensitive-outputs");
      const outputs = (JSON.parse(readFileSync(outputsFile, "utf8")) as { basic: Record<string, string> }).basic;
      await expectDeployed(outputs, join(work, "cdktf.out", "stacks", "basic"));

      await cdktf("destroy", "basic");
      await expectDestroyed(outputs);
    });

    // Terraform is left out here: it would apply the very configuration cdktf synthesizes, which
    // test/e2e/engines.test.ts and the test above already cover, at the cost of another deploy.
    it("synthesizes on CDK Terrain (examples/cdktn) what cdktf does, and deploys it with OpenTofu", async () => {
      // The app bundled whole, with cdktn and constructs from the example's own workspace, runs anywhere.
      await build({
        entryPoints: [repoPath("examples/cdktn/main.ts")],
        bundle: true,
        platform: "node",
        target: "node20",
        outfile: join(work, "app.js"),
        logLevel: "warning",
      });
      const stack = new StackDir(tofu, await synth([join(work, "app.js")], work, "basic"), env);
      const cdktf = await synth([repoPath("scripts/run-ts.mjs"), repoPath("examples/basic/main.ts")], mkdtempSync(join(work, "cdktf-")), "basic");
      expect(configuration(stack.dir)).toEqual(configuration(cdktf));

      const outputs = await stack.deploy();
      await expectDeployed(outputs, stack.dir);
      await stack.destroy();
      await expectDestroyed(outputs);
    });
  });

  it("the bindings package installs offline into a project outside the repository, and deploys", async () => {
    // A fresh project, as a user makes one; npm only ever reads local files here.
    const npm = (...args: string[]) =>
      run("npm", [...args, "--offline", "--no-audit", "--no-fund"], work, { ...process.env, npm_config_update_notifier: "false" });
    const name = (JSON.parse(readFileSync(repoPath("dist/cdktf-bindings/package.json"), "utf8")) as { name: string }).name;
    const [{ filename }] = JSON.parse(await npm("pack", repoPath("dist/cdktf-bindings"), "--pack-destination", work, "--json")) as [{ filename: string }];
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "outside", version: "1.0.0", private: true }));
    // The tarball is copied in, so its peer dependencies resolve from this project, where the user's
    // cdktf and constructs are: here the repository's own, linked.
    await npm("install", `./${filename}`, repoPath("node_modules/cdktf"), repoPath("node_modules/constructs"));
    expect(lstatSync(join(work, "node_modules", name)).isSymbolicLink()).toBe(false);

    // Both ways of importing: the package's namespaces, and one module of it.
    const key = sshKeyText("ed25519", "outside@example");
    writeFileSync(
      join(work, "main.ts"),
      `import { App, TerraformOutput, TerraformStack } from "cdktf";
import { dataMgmtProfile, provider } from "${name}";
import { SshKey } from "${name}/lib/ssh-key";

const app = new App();
const stack = new TerraformStack(app, "outside");
new provider.MgmtProvider(stack, "mgmt", {});
const key = new SshKey(stack, "key", { label: "outside", sshKey: ${JSON.stringify(key)} });
const me = new dataMgmtProfile.DataMgmtProfile(stack, "me", {});
new TerraformOutput(stack, "key_id", { value: key.id });
new TerraformOutput(stack, "username", { value: me.username });
app.synth();
`,
    );
    // The settings of cdktf's own project template, type-checked against the package's declarations.
    writeFileSync(
      join(work, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2020", module: "CommonJS", strict: true, noUnusedLocals: true, skipLibCheck: true }, files: ["main.ts"] }),
    );
    await run(process.execPath, [repoPath("node_modules/typescript/bin/tsc"), "-p", work], work);

    const stack = new StackDir(tofu, await synth([join(work, "main.js")], work, "outside"), env);
    const outputs = await stack.deploy();
    expect(await client.getSshKey(Number(outputs.key_id))).toMatchObject({ label: "outside", ssh_key: key });
    expect(outputs.username).toBe((await client.getProfile()).username);
    await stack.destroy();
    await expect(client.getSshKey(Number(outputs.key_id))).rejects.toMatchObject({ status: 404 });
  });
});
