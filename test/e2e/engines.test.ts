/** @tier engine */
/**
 * Real engines (OpenTofu from npm, Terraform when on PATH) driving the built plugin against a
 * real `mgmt serve`: the whole life of an SSH key, drift, import and refusal at plan.
 */
import { availableEngines, type Engine } from "../../src/harness/engine";
import { sshKeyText } from "../../testkit/ssh-keys";
import { EngineStack } from "./stack";

jest.setTimeout(180_000);

const KEY_A = sshKeyText("ed25519", "alice@laptop");
const KEY_A_REFORMATTED = `  ${KEY_A.split(" ").slice(0, 2).join("   ")}   alice@desktop  `;
const KEY_B = sshKeyText("ecdsa", "alice@phone");

describe.each(availableEngines())("$name drives mgmt_ssh_key end to end", (engine: Engine) => {
  let stack: EngineStack;
  const client = () => stack.client;
  const writeConfig = (keys: Record<string, { label: string; ssh_key: string }>) =>
    stack.write({
      resource: Object.keys(keys).length ? { mgmt_ssh_key: keys } : {},
      data: { mgmt_profile: { me: {} } },
      output: { username: { value: "${data.mgmt_profile.me.username}" } },
    });
  const planActions = async () => (await stack.plan()).actions;
  const state = () => stack.state();
  const noChanges = () => stack.expectNoChanges();
  const ok = (command: string, ...args: string[]) => stack.ok(command, ...args);
  const run = (command: string, ...args: string[]) => stack.run(command, ...args);

  beforeAll(async () => {
    stack = await EngineStack.start(engine);
  });
  afterAll(() => stack?.stop());

  it("creates, then plans no changes", async () => {
    writeConfig({ a: { label: "laptop", ssh_key: KEY_A } });
    expect(await planActions()).toEqual({ "mgmt_ssh_key.a": ["create"] });
    await ok("apply", "-auto-approve");
    const a = (await state())["mgmt_ssh_key.a"]!;
    expect(a).toMatchObject({ label: "laptop", ssh_key: KEY_A });
    expect(a.id).toMatch(/^\d+$/);
    expect(a.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const live = await client().getSshKey(Number(a.id));
    expect(live.label).toBe("laptop");
    await noChanges();
  });

  it("ignores comment and spacing differences around the same key", async () => {
    writeConfig({ a: { label: "laptop", ssh_key: KEY_A_REFORMATTED } });
    await noChanges();
  });

  it("changes the label in place, keeping the id", async () => {
    const before = (await state())["mgmt_ssh_key.a"]!;
    writeConfig({ a: { label: "work laptop", ssh_key: KEY_A } });
    expect(await planActions()).toEqual({ "mgmt_ssh_key.a": ["update"] });
    await ok("apply", "-auto-approve");
    const after = (await state())["mgmt_ssh_key.a"]!;
    expect(after).toMatchObject({ id: before.id, created: before.created, label: "work laptop" });
    await noChanges();
  });

  it("replaces the key when the key material changes", async () => {
    const before = (await state())["mgmt_ssh_key.a"]!;
    writeConfig({ a: { label: "work laptop", ssh_key: KEY_B } });
    expect(await planActions()).toEqual({ "mgmt_ssh_key.a": ["delete", "create"] });
    await ok("apply", "-auto-approve");
    const after = (await state())["mgmt_ssh_key.a"]!;
    expect(after.id).not.toBe(before.id);
    expect(after.ssh_key).toBe(KEY_B);
    await expect(client().getSshKey(Number(before.id))).rejects.toMatchObject({ status: 404 });
    await noChanges();
  });

  it("detects an out-of-band label change and repairs it", async () => {
    const id = Number((await state())["mgmt_ssh_key.a"]!.id);
    await client().updateSshKey(id, { label: "changed by hand" });
    expect(await planActions()).toEqual({ "mgmt_ssh_key.a": ["update"] });
    await ok("apply", "-auto-approve");
    expect((await client().getSshKey(id)).label).toBe("work laptop");
    await noChanges();
  });

  it("detects an out-of-band delete and re-creates the key", async () => {
    const id = Number((await state())["mgmt_ssh_key.a"]!.id);
    await client().deleteSshKey(id);
    expect(await planActions()).toEqual({ "mgmt_ssh_key.a": ["create"] });
    await ok("apply", "-auto-approve");
    const again = (await state())["mgmt_ssh_key.a"]!;
    expect(Number(again.id)).not.toBe(id);
    await noChanges();
  });

  it("imports an existing key by id, then plans no changes", async () => {
    const made = await client().createSshKey({ label: "made elsewhere", ssh_key: KEY_A });
    writeConfig({ a: { label: "work laptop", ssh_key: KEY_B }, imported: { label: "made elsewhere", ssh_key: KEY_A } });
    await ok("import", "mgmt_ssh_key.imported", String(made.id));
    expect((await state())["mgmt_ssh_key.imported"]).toMatchObject({ id: String(made.id), label: "made elsewhere", ssh_key: KEY_A });
    await noChanges();
  });

  it("refuses an invalid label at plan, naming the attribute", async () => {
    writeConfig({ a: { label: "x".repeat(65), ssh_key: KEY_B }, imported: { label: "made elsewhere", ssh_key: KEY_A } });
    const r = await run("plan");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Invalid label/);
    expect(r.stderr).toMatch(/label: Length must be between 1 and 64 characters/);
    expect(r.stderr).toMatch(/mgmt_ssh_key\.a/);
  });

  it("reads the profile data source", async () => {
    writeConfig({ a: { label: "work laptop", ssh_key: KEY_B }, imported: { label: "made elsewhere", ssh_key: KEY_A } });
    const out = await ok("output", "-json", "username");
    expect(JSON.parse(out.stdout)).toBe((await client().getProfile()).username);
  });

  it("destroys everything it manages", async () => {
    const managed = Object.entries(await state()).filter(([address]) => address.startsWith("mgmt_ssh_key."));
    expect(managed.length).toBe(2);
    const ids = managed.map(([, r]) => Number(r.id));
    await ok("destroy", "-auto-approve");
    for (const id of ids) await expect(client().getSshKey(id)).rejects.toMatchObject({ status: 404 });
  });
});
