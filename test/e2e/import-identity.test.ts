/**
 * An import names what it adopts: the module `mgmt drift --import-out imports.ts` writes records each
 * adopted object's identity, and at synth keeps an import only while the live object with its id is
 * that object. Proven on each engine with a stack that calls only `importUnmanaged(this)` (no line of
 * the scaffold's): adoption imports; a rebuild in another account where a stranger's key and token
 * hold the adopted ids plans no import of them and no destroy, naming each skipped id on stderr; the
 * same rebuild once those ids name nothing creates the objects; an API that answers 503 stops the synth.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { MgmtClient } from "../../src/client";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { runProcess } from "../../src/harness/process";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { FaultProxy } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";
import { runMgmt } from "../report/run-mgmt";

jest.setTimeout(600_000);

const BINDINGS = "@mgmt/cdktf-provider-mgmt";
const STACK = "account";

const mainTs = (imports: boolean) => `import { App, LocalBackend, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { provider, tag } from "${BINDINGS}";
${imports ? 'import { importUnmanaged } from "./imports";\n' : ""}
class Account extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new LocalBackend(this, { path: process.env.STATE_FILE ?? "terraform.tfstate" });
    new provider.MgmtProvider(this, "mgmt", {});
    new tag.Tag(this, "own", { label: "own-tag" });${imports ? "\n    importUnmanaged(this);" : ""}
  }
}

const app = new App();
new Account(app, ${JSON.stringify(STACK)});
app.synth();
`;

const TSCONFIG = {
  compilerOptions: { target: "ES2020", module: "CommonJS", strict: true, noUnusedLocals: true, noUnusedParameters: true, skipLibCheck: true },
  include: ["*.ts"],
};

interface PlanJson {
  resource_changes?: { address: string; change: { actions: string[]; importing?: { id: string } } }[];
}

describe.each(availableEngines().map((e) => [e.name, e] as const))("imports that name what they adopt, with %s", (_name, engine: Engine) => {
  let first: RunningServer;
  let other: RunningServer;
  let work: string;
  const clients: MgmtClient[] = [];

  beforeAll(async () => {
    [first, other] = await Promise.all([startServe(), startServe()]);
    work = mkdtempSync(join(tmpdir(), `mgmt-import-identity-${engine.name}-`));
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all([first?.stop(), other?.stop()]);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const envFor = (url: string, token: string): NodeJS.ProcessEnv => ({
    ...engineEnvironment({ cliConfig: writeCliConfig(work, "mirror"), url, token }),
    PATH: `${dirname(engine.binary)}${delimiter}${process.env.PATH ?? ""}`,
    TERRAFORM_BINARY_NAME: engine.name === "tofu" ? "tofu" : "terraform",
  });
  const clientOf = (s: RunningServer) => {
    const c = new MgmtClient({ url: s.url, token: s.token });
    clients.push(c);
    return c;
  };

  function project(name: string): string {
    const dir = join(work, name);
    for (const scope of ["@mgmt", "@types"]) mkdirSync(join(dir, "node_modules", scope), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", private: true }));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
    symlinkSync(repoPath("dist/cdktf-bindings"), join(dir, "node_modules", BINDINGS));
    for (const p of ["cdktf", "constructs", "@types/node"]) symlinkSync(repoPath("node_modules", p), join(dir, "node_modules", p));
    return dir;
  }

  /** tsc, then the app; the synth's exit code and stderr, and the stack's folder. */
  async function synth(dir: string, env: NodeJS.ProcessEnv, state: string) {
    const tsc = await runProcess(process.execPath, [repoPath("node_modules/typescript/bin/tsc"), "-p", dir], { cwd: dir });
    if (tsc.code !== 0) throw new Error(`tsc failed\n${tsc.stdout}`);
    const r = await runProcess(process.execPath, [join(dir, "main.js")], {
      cwd: dir,
      env: { ...env, CDKTF_OUTDIR: join(dir, "cdktf.out"), STATE_FILE: state, CHECKPOINT_DISABLE: "1" },
    });
    return { code: r.code, stderr: r.stderr, stackDir: join(dir, "cdktf.out", "stacks", STACK) };
  }

  async function plan(stackDir: string, env: NodeJS.ProcessEnv) {
    for (const args of [
      ["init", "-no-color", "-reconfigure"],
      ["plan", "-no-color", "-out=p.tfplan"],
    ]) {
      const r = await runEngine(engine, args, stackDir, env);
      if (r.code !== 0) throw new Error(`${engine.name} ${args[0]} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    }
    const show = await runEngine(engine, ["show", "-json", "p.tfplan"], stackDir, env);
    return (JSON.parse(show.stdout) as PlanJson).resource_changes ?? [];
  }

  it("adopts, and a rebuild where strangers hold the adopted ids imports neither and destroys nothing", async () => {
    const a = clientOf(first);
    const envA = envFor(first.url, first.token);
    const key = await a.createSshKey({ label: "build runner", ssh_key: sshKeyText("ed25519", "runner@example") });
    const made = await a.createToken({ label: "deploy", scopes: "account:read_only" });

    // Adoption: drift writes the module, the stack calls it, the plan imports both.
    const app = project("app");
    const state = join(app, "terraform.tfstate");
    writeFileSync(join(app, "main.ts"), mainTs(false));
    let s = await synth(app, envA, state);
    expect(s.code).toBe(0);
    await runEngine(engine, ["init", "-no-color"], s.stackDir, envA);
    expect((await runEngine(engine, ["apply", "-auto-approve", "-no-color"], s.stackDir, envA)).code).toBe(0);
    const found = await runMgmt(
      ["drift", "--dir", s.stackDir, "--engine", engine.name, "--unmanaged", "--format", "json", "--import-out", join(app, "imports.ts")],
      {
        env: envA,
      },
    );
    expect(found.code).toBe(2);
    const module = readFileSync(join(app, "imports.ts"), "utf8");
    expect(module).toContain("keepOnlyAdopted(scope, ADOPTED);");
    expect(module).toMatch(/fingerprint: "SHA256:/);
    writeFileSync(join(app, "main.ts"), mainTs(true));
    s = await synth(app, envA, state);
    expect({ code: s.code, stderr: s.stderr }).toEqual({ code: 0, stderr: "" });
    const adoption = await plan(s.stackDir, envA);
    const importing = adoption.filter((c) => c.change.importing).map((c) => c.change.importing!.id);
    expect(importing).toEqual(expect.arrayContaining([String(key.id), String(made.id)]));
    expect(adoption.filter((c) => !["no-op", "update"].includes(c.change.actions.join()) && !c.change.importing)).toEqual([]);

    // Another account, where a stranger's key and token got the same ids.
    const b = clientOf(other);
    const envB = envFor(other.url, other.token);
    const strangerKey = await b.createSshKey({ label: "legacy-key", ssh_key: sshKeyText("ed25519", "legacy@example") });
    const strangerToken = await b.createToken({ label: "legacy deploy", scopes: "account:read_only" });
    expect([strangerKey.id, strangerToken.id]).toEqual([key.id, made.id]);
    const rebuilt = join(work, `${engine.name}-rebuild.tfstate`);
    s = await synth(app, envB, rebuilt);
    expect(s.code).toBe(0);
    // (The fixtures have a "build runner" key too, so the construct id may carry a number.)
    const skipped = new RegExp(
      `live-imports: mgmt_ssh_key "${key.id}" \\((ssh_key_build_runner\\w*)\\) is another object \\(its label and fingerprint differ`,
    ).exec(s.stderr);
    expect({ stderr: s.stderr, skipped: skipped !== null }).toEqual({ stderr: s.stderr, skipped: true });
    const construct = skipped![1]!;
    expect(s.stderr).toMatch(new RegExp(`live-imports: mgmt_token "${made.id}" \\(token_deploy\\) is another object \\(its label( and created)? differs?`));
    const rebuild = await plan(s.stackDir, envB);
    const ids = rebuild.filter((c) => c.change.importing).map((c) => c.change.importing!.id);
    expect(ids).not.toContain(String(key.id));
    expect(ids).not.toContain(String(made.id));
    expect(rebuild.filter((c) => c.change.actions.includes("delete"))).toEqual([]);
    expect(rebuild.find((c) => c.address.endsWith(`.${construct}`))?.change.actions).toEqual(["create"]);

    // Once those ids name nothing, the same rebuild creates the objects, saying so.
    await b.deleteSshKey(strangerKey.id);
    await b.revokeToken(strangerToken.id);
    s = await synth(app, envB, rebuilt);
    expect(s.stderr).toContain(`live-imports: mgmt_ssh_key "${key.id}" (${construct}) is not in the account, so it is created, not imported`);
    const fresh = await plan(s.stackDir, envB);
    expect(fresh.filter((c) => c.change.importing).map((c) => c.change.importing!.id)).not.toContain(String(key.id));
    expect(fresh.filter((c) => c.change.actions.includes("delete"))).toEqual([]);

    // An API that cannot answer stops the synth instead of keeping the imports blindly.
    const proxy = await FaultProxy.start(other.url);
    try {
      proxy.rule = () => ({ kind: "status", status: 503 });
      s = await synth(app, { ...envB, MGMT_URL: proxy.url }, rebuilt);
      expect(s.code).not.toBe(0);
      expect(s.stderr).toMatch(/live-imports: cannot tell whether the \d+ adopted objects are still the ones in the account at .*: GET \/\S+ answered 503/);
    } finally {
      await proxy.close();
    }
  });
});
