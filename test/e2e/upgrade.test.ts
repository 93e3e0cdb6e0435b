/**
 * Upgrades: state written by the last release plans as that release plans it, on both engines.
 * The release is built from its own commit (src/harness/release-build.ts) and applies a stack of every
 * managed resource type, an imported object, a tainted tag, a token due for rotation and (on
 * Terraform) a key managed through a child account's ephemeral token; after
 * each step this build must plan what the release plans (no changes where the release sees none).
 * With MGMT_RECORD_UPGRADE_CORPUS=1 the run keeps what the release wrote in test/upgrade/corpus,
 * which test/upgrade/corpus.test.ts plans under every later build.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MgmtClient } from "../../src/client";
import { availableEngines, writeCliConfig, type Engine } from "../../src/harness/engine";
import { buildRelease, type BuiltRelease } from "../../src/harness/release-build";
import { latestRelease } from "../../src/harness/releases";
import { startServe } from "../../src/harness/serve";
import { seedChildAccount } from "../support/child-account";
import { sshKeyText } from "../../testkit/ssh-keys";
import { corpusEntryDir, upgradeStack, type CorpusEntry } from "../upgrade/stack";
import { EngineStack } from "./stack";

jest.setTimeout(600_000);

const ADMIN_TOKEN = "upgrade-admin-token";

let release: BuiltRelease;
beforeAll(() => {
  release = buildRelease(latestRelease());
});

describe.each(availableEngines())("$name: state written by the last release", (engine: Engine) => {
  let stack: EngineStack;
  let thisBuild: string;
  let theRelease: string;
  let entry: CorpusEntry;
  const store = () => join(stack.dir, "store");

  beforeAll(async () => {
    stack = await EngineStack.start(engine);
    thisBuild = stack.env.TF_CLI_CONFIG_FILE!;
    theRelease = writeCliConfig(join(stack.dir, "release"), "dev", join(release.root, "bin"));
    // A store on disk, so that what the release wrote can be kept.
    await stack.server.stop();
    mkdirSync(store());
    const server = await startServe(["--port", "0", "--db", join(store(), "mgmt.sqlite")], { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN });
    Object.assign(stack, { server, client: new MgmtClient({ url: server.url, token: server.token }) });
    stack.env = { ...stack.env, MGMT_URL: server.url, MGMT_TOKEN: server.token };
  });
  afterAll(() => stack?.stop());

  const use = (cliConfig: string) => (stack.env = { ...stack.env, TF_CLI_CONFIG_FILE: cliConfig });

  /** Plans with the release, then with this build: the two must want the same actions. */
  async function samePlan(): Promise<Record<string, string[]>> {
    use(theRelease);
    const before = (await stack.plan()).actions;
    use(thisBuild);
    const after = (await stack.plan()).actions;
    expect(after).toEqual(before);
    return after;
  }

  async function applyWithRelease(): Promise<void> {
    use(theRelease);
    await stack.ok("apply", "-auto-approve");
  }

  it("plans no changes for a stack of every resource type the release applied, an import among them", async () => {
    const computes: number[] = [];
    for await (const o of stack.client.listTaggedObjects("production")) if (o.type === "compute") computes.push(o.data.id);
    const imported = sshKeyText("ed25519", "made@elsewhere");
    const key = await stack.client.createSshKey({ label: "made elsewhere", ssh_key: imported });
    entry = {
      release: release.version,
      engine: engine.name,
      imported: { id: key.id, key: imported },
      laptopKey: sshKeyText("rsa", "laptop"),
      computes: computes.slice(0, 1),
    };
    stack.write(upgradeStack(entry));
    await applyWithRelease();
    expect(Object.keys(await stack.state()).sort()).toEqual(
      [
        "mgmt_account_contact.me",
        "mgmt_oauth_client.app",
        "mgmt_profile_settings.me",
        "mgmt_ssh_key.imported",
        "mgmt_ssh_key.laptop",
        "mgmt_tag.team",
        "mgmt_token.ci",
      ].sort(),
    );
    expect(await samePlan()).toEqual({});
    await stack.expectNoChanges();
  });

  it("replaces a tag the release's state marks tainted, as the release would", async () => {
    await stack.ok("taint", "mgmt_tag.team");
    expect(await samePlan()).toEqual({ "mgmt_tag.team": ["delete", "create"] });
    await applyWithRelease();
    expect(await samePlan()).toEqual({});
  });

  // Ephemeral resources need Terraform 1.10+ (OpenTofu 1.6 has none): there, a provider configured with the
  // child account's ephemeral proxy token manages a key inside the child account.
  if (engine.name === "terraform") {
    it("plans no changes for a key managed through a child account's ephemeral token", async () => {
      const child = await seedChildAccount(stack.server.url, ADMIN_TOKEN, "Upgrade Child");
      const base = upgradeStack(entry) as { resource: { mgmt_ssh_key: object } };
      const inChild = (key: object) => ({
        ...base,
        provider: { mgmt: [{}, { alias: "child", token: "${ephemeral.mgmt_child_account_token.c.token}" }] },
        ephemeral: { mgmt_child_account_token: { c: { euuid: child.euuid } } },
        resource: { ...base.resource, mgmt_ssh_key: { ...base.resource.mgmt_ssh_key, ...key } },
      });
      try {
        stack.write(inChild({ in_child: { provider: "mgmt.child", label: "in child", ssh_key: entry.laptopKey } }));
        await applyWithRelease();
        const labels: string[] = [];
        for await (const k of child.proxy.listSshKeys()) labels.push(k.label);
        expect(labels).toEqual(["in child"]);
        expect(await samePlan()).toEqual({});
        // The child's key is destroyed through the child's provider, which the stack then drops.
        stack.write(inChild({}));
        await applyWithRelease();
        stack.write(base);
      } finally {
        await child.proxy.close();
      }
    });
  }

  it("rotates a token due for renewal in place where the release replaced it, and plans clean once it is rotated back", async () => {
    // A second short of expires_in (which renew_before must stay under): due once the token is a second old.
    stack.write(upgradeStack(entry, { renewBefore: "87599h59m59s" }));
    // The one intended difference: this build rotates in place (create, then revoke), the release destroyed first.
    use(theRelease);
    expect((await stack.plan()).actions["mgmt_token.ci"]).toEqual(["delete", "create"]);
    use(thisBuild);
    expect((await stack.plan()).actions["mgmt_token.ci"]).toEqual(["update"]);
    await applyWithRelease();
    stack.write(upgradeStack(entry));
    await samePlan();
    await applyWithRelease();
    expect(await samePlan()).toEqual({});
    await stack.expectNoChanges();

    if (process.env.MGMT_RECORD_UPGRADE_CORPUS === "1") {
      // The server is stopped first, so the store file is whole; afterAll's stop of it is then a no-op.
      await stack.server.stop();
      const into = corpusEntryDir(entry);
      rmSync(into, { recursive: true, force: true });
      mkdirSync(into, { recursive: true });
      cpSync(store(), join(into, "store"), { recursive: true });
      for (const file of ["terraform.tfstate", "main.tf.json"]) cpSync(join(stack.dir, file), join(into, file));
      writeFileSync(join(into, "entry.json"), JSON.stringify(entry, null, 1) + "\n");
    }
  });
});
