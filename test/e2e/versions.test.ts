/** @tier npm */
/**
 * Two releases side by side: `mgmt install-provider` of each into one mirror keeps both; a
 * version constraint picks among them, the lock file records the pick, `init -upgrade` moves to
 * the newest allowed, and state the older one wrote plans with no changes under the newer.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AUTOMATION_ENV, availableEngines, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { runProcess } from "../../src/harness/process";
import { buildRelease, type BuiltRelease } from "../../src/harness/release-build";
import { latestRelease } from "../../src/harness/releases";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../../src/provider/identity";
import { sshKeyText } from "../../testkit/ssh-keys";

jest.setTimeout(300_000);

let release: BuiltRelease;
let mirror: string;
let work: string;
let server: RunningServer;

beforeAll(async () => {
  release = buildRelease(latestRelease());
  work = mkdtempSync(join(tmpdir(), "mgmt-versions-"));
  mirror = join(work, "mirror");
  for (const cli of [join(release.root, "dist", "cli.js"), repoPath("dist", "cli.js")]) {
    const r = await runProcess(process.execPath, [cli, "install-provider", "--dir", mirror]);
    expect(r).toMatchObject({ code: 0 });
  }
  server = await startServe();
});
afterAll(async () => {
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

it("install-provider adds a release beside those already installed", () => {
  expect(readdirSync(join(mirror, PROVIDER_SOURCE)).sort()).toEqual([release.version, PROVIDER_VERSION].sort());
});

describe.each(availableEngines())("$name", (engine: Engine) => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const key = sshKeyText("ed25519", engine.name);

  beforeAll(() => {
    dir = join(work, engine.name);
    mkdirSync(dir);
    const cliConfig = writeCliConfig(dir, "mirror", mirror);
    env = { ...process.env, ...AUTOMATION_ENV, TF_CLI_CONFIG_FILE: cliConfig, MGMT_URL: server.url, MGMT_TOKEN: server.token };
  });

  const write = (constraint: string) =>
    writeFileSync(
      join(dir, "main.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE, version: constraint } } },
        resource: { mgmt_ssh_key: { laptop: { label: `versions-${engine.name}`, ssh_key: key } } },
      }),
    );
  const run = async (...args: string[]) => {
    const r = await runEngine(engine, [args[0]!, "-no-color", ...args.slice(1)], dir, env);
    if (r.code !== 0 && args[1] !== "-detailed-exitcode") throw new Error(`${engine.name} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  const locked = () => /version\s*=\s*"([^"]+)"/.exec(readFileSync(join(dir, ".terraform.lock.hcl"), "utf8"))?.[1];

  it("installs and locks the release a constraint pins, and applies with it", async () => {
    write(`= ${release.version}`);
    await run("init");
    expect(locked()).toBe(release.version);
    await run("apply", "-auto-approve");
    expect(existsSync(join(dir, "terraform.tfstate"))).toBe(true);
  });

  it("keeps the locked release when the constraint widens, and moves to the newest allowed with init -upgrade", async () => {
    write(`>= ${release.version}`);
    await run("init");
    expect(locked()).toBe(release.version);
    await run("init", "-upgrade");
    expect(locked()).toBe(PROVIDER_VERSION);
  });

  it("plans the older release's state with no changes under the newer", async () => {
    const plan = await run("plan", "-detailed-exitcode");
    expect({ code: plan.code, output: plan.code === 0 ? "" : plan.stdout + plan.stderr }).toEqual({ code: 0, output: "" });
  });
});
