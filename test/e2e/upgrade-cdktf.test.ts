/** @tier npm */
/**
 * Upgrades from cdktf: the last release's own examples/basic stack, synthesized with that
 * release's bindings and deployed with its provider, then synthesized from the same code with
 * this build's bindings, moved to this build's provider with `init -upgrade`, plans with no
 * changes, on both engines. (HCL: ./upgrade.test.ts.)
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { runProcess } from "../../src/harness/process";
import { buildRelease, type BuiltRelease } from "../../src/harness/release-build";
import { latestRelease } from "../../src/harness/releases";
import { startServe, type RunningServer } from "../../src/harness/serve";

jest.setTimeout(600_000);

let release: BuiltRelease;
let work: string;
const apps = { release: "", thisBuild: "" };

/** The app's imports of its bindings (`.../generated/providers/mgmt/<construct>`) taken from `bindings` instead. */
const bindingsFrom = (bindings: string): Plugin => ({
  name: "bindings",
  setup(b) {
    b.onResolve({ filter: /generated\/providers\/mgmt\// }, (args) => ({
      path: join(bindings, args.path.replace(/^.*generated\/providers\/mgmt\//, ""), "index.ts"),
    }));
  },
});

beforeAll(async () => {
  release = buildRelease(latestRelease());
  work = mkdtempSync(join(tmpdir(), "mgmt-upgrade-cdktf-"));
  // One program, the release's, bundled whole twice: once with each build's bindings.
  for (const [name, root] of [
    ["release", release.root],
    ["thisBuild", repoPath()],
  ] as const) {
    apps[name] = join(work, `${name}.js`);
    await build({
      entryPoints: [join(release.root, "examples", "basic", "main.ts")],
      bundle: true,
      platform: "node",
      target: "node20",
      outfile: apps[name],
      logLevel: "warning",
      plugins: [bindingsFrom(join(root, "generated", "providers", "mgmt"))],
    });
  }
});
afterAll(() => work && rmSync(work, { recursive: true, force: true }));

describe.each(availableEngines())("$name: a cdktf stack the last release deployed", (engine: Engine) => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    server = await startServe();
    dir = join(work, engine.name);
    mkdirSync(dir);
  });
  afterAll(() => server?.stop());

  async function synth(app: string): Promise<string> {
    const r = await runProcess(process.execPath, [app], { cwd: dir, env: { ...process.env, CDKTF_OUTDIR: join(dir, "cdktf.out"), CHECKPOINT_DISABLE: "1" } });
    if (r.code !== 0) throw new Error(`synth exited ${r.code}\n${r.stderr}`);
    return join(dir, "cdktf.out", "stacks", "basic");
  }
  async function ok(stackDir: string, mirror: string, ...args: string[]) {
    const env = engineEnvironment({ cliConfig: writeCliConfig(join(dir, `cli-${args[0]}`), "mirror", mirror), url: server.url, token: server.token });
    const r = await runEngine(engine, [args[0]!, "-no-color", ...args.slice(1)], stackDir, env);
    if (r.code !== 0) throw new Error(`${engine.name} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  }

  it("plans no changes once synthesized with this build's bindings and moved to its provider", async () => {
    const releaseMirror = join(release.root, "dist", "mirror");
    const stack = await synth(apps.release);
    await ok(stack, releaseMirror, "init");
    await ok(stack, releaseMirror, "apply", "-auto-approve");

    expect(await synth(apps.thisBuild)).toBe(stack);
    await ok(stack, repoPath("dist", "mirror"), "init", "-upgrade");
    await ok(stack, repoPath("dist", "mirror"), "plan", "-detailed-exitcode");
  });
});
