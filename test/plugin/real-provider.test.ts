/** @tier cli */
/**
 * The built plugin (bin/terraform-provider-mgmt, the real provider) driven as Terraform drives
 * it — go-plugin handshake, mutual TLS, tfplugin6 calls — against a real `mgmt serve`.
 */
import { createProvider } from "../../src/provider";
import { repoPath } from "../../src/harness/paths";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { Unknown, type ObjectValue } from "../../src/provider/framework/value";
import { sshKeyText } from "../../testkit/ssh-keys";
import { PluginHarness } from "../../testkit/plugin-harness";

const KEY = sshKeyText("ed25519", "ops@bastion");
const OTHER_KEY = sshKeyText("ecdsa", "ops@bastion");

describe("terraform-provider-mgmt over the plugin protocol", () => {
  let server: RunningServer;
  let plugin: PluginHarness;

  beforeAll(async () => {
    server = await startServe();
    plugin = await PluginHarness.start({ executable: repoPath("bin/terraform-provider-mgmt"), env: { MGMT_URL: server.url, MGMT_TOKEN: server.token } });
  });
  afterAll(async () => {
    await plugin?.kill();
    await server?.stop();
  });

  const config = (label: string, sshKey = KEY): ObjectValue => ({ id: null, label, ssh_key: sshKey, created: null });

  it("serves the schema with the token marked sensitive", async () => {
    const { provider, resources, dataSources, diagnostics } = await plugin.getProviderSchema();
    expect(diagnostics).toEqual([]);
    expect(provider.block.attributes?.token).toMatchObject({ type: "string", optional: true, sensitive: true });
    expect(Object.keys(resources).sort()).toEqual([
      "mgmt_account_contact",
      "mgmt_oauth_client",
      "mgmt_profile_settings",
      "mgmt_ssh_key",
      "mgmt_tag",
      "mgmt_token",
    ]);
    expect(Object.keys(dataSources).sort()).toEqual(Object.keys(createProvider().schemas().dataSources).sort());
    expect(dataSources.mgmt_ssh_keys!.block.block_types?.filter).toMatchObject({ nesting_mode: "list" });
    expect(resources.mgmt_ssh_key!.block.attributes).toMatchObject({
      label: { required: true },
      ssh_key: { required: true },
      id: { computed: true },
      created: { computed: true },
    });
  });

  it("validates config, naming the attribute at fault", async () => {
    expect((await plugin.validateProviderConfig({ url: "not a url", token: null })).diagnostics[0]).toMatchObject({
      severity: "error",
      attribute: [{ attribute: "url" }],
    });
    expect((await plugin.validateResourceConfig("mgmt_ssh_key", config("x".repeat(65)))).diagnostics[0]).toMatchObject({
      severity: "error",
      attribute: [{ attribute: "label" }],
    });
    expect((await plugin.validateResourceConfig("mgmt_ssh_key", config("ok", "ssh-ed25519 nope"))).diagnostics[0]).toMatchObject({
      attribute: [{ attribute: "ssh_key" }],
    });
    expect((await plugin.validateResourceConfig("mgmt_ssh_key", { ...config("ok"), label: Unknown })).diagnostics).toEqual([]);
  });

  it("configures from the environment, then plans, applies, reads, updates, imports and deletes", async () => {
    expect((await plugin.configureProvider({ url: null, token: null })).diagnostics).toEqual([]);

    const plan = await plugin.planResourceChange("mgmt_ssh_key", { priorState: null, proposedNewState: config("bastion"), config: config("bastion") });
    expect(plan.plannedState).toEqual({ id: Unknown, label: "bastion", ssh_key: KEY, created: Unknown });
    const created = await plugin.applyResourceChange("mgmt_ssh_key", { priorState: null, plannedState: plan.plannedState, config: config("bastion") });
    expect(created.diagnostics).toEqual([]);
    const state = created.newState!;
    expect(state.id).toMatch(/^\d+$/);

    expect((await plugin.readResource("mgmt_ssh_key", state)).newState).toEqual(state);

    // Terraform upgrades stored state on every run, even at the same schema version.
    const upgraded = await plugin.upgradeResourceState("mgmt_ssh_key", 0, state);
    expect(upgraded).toEqual({ upgradedState: state, diagnostics: [] });

    const replace = await plugin.planResourceChange("mgmt_ssh_key", {
      priorState: state,
      proposedNewState: { ...state, ssh_key: OTHER_KEY },
      config: config("bastion", OTHER_KEY),
    });
    expect(replace.requiresReplace).toEqual([[{ attribute: "ssh_key" }]]);

    const relabel = await plugin.planResourceChange("mgmt_ssh_key", {
      priorState: state,
      proposedNewState: { ...state, label: "jump host" },
      config: config("jump host"),
    });
    expect(relabel).toMatchObject({ plannedState: { ...state, label: "jump host" }, requiresReplace: [] });
    const updated = await plugin.applyResourceChange("mgmt_ssh_key", { priorState: state, plannedState: relabel.plannedState, config: config("jump host") });
    expect(updated.newState).toEqual({ ...state, label: "jump host" });

    const imported = await plugin.importResourceState("mgmt_ssh_key", String(state.id));
    expect(imported.imported).toEqual([expect.objectContaining({ typeName: "mgmt_ssh_key", state: { ...state, label: "jump host" } })]);

    const deleted = await plugin.applyResourceChange("mgmt_ssh_key", { priorState: updated.newState, plannedState: null, config: null });
    expect(deleted).toMatchObject({ newState: null, diagnostics: [] });
    expect((await plugin.readResource("mgmt_ssh_key", state)).newState).toBeNull();
  });

  it("reads the profile data source", async () => {
    const { state, diagnostics } = await plugin.readDataSource("mgmt_profile", {});
    expect(diagnostics).toEqual([]);
    expect(state).toMatchObject({ username: "admin", restricted: false, uid: expect.any(Number) });
  });

  it("exits when the engine shuts it down", async () => {
    expect(await plugin.shutdown()).toBe(0);
  });
});
