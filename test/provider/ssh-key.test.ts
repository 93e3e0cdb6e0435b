/** The provider against a real in-process server, without the plugin: CRUD, drift, import. */
import type { ProviderServer } from "../../src/provider/framework/server";
import { createProvider } from "../../src/provider";
import { Unknown, type ObjectValue } from "../../src/provider/framework/value";
import { startServer, type RunningServer } from "../../src/server";
import { silentLogger } from "../../src/server/logger";
import { sshKeyText } from "../../testkit/ssh-keys";

const KEY = sshKeyText("ed25519", "alice@laptop");

describe("mgmt_ssh_key against mgmt serve", () => {
  let server: RunningServer;
  let provider: ProviderServer;

  beforeAll(async () => {
    server = await startServer({ logger: silentLogger });
    provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: server.token! } });
    expect((await provider.configure({ url: null, token: null })).diagnostics).toEqual([]);
  });
  afterAll(() => server.close());

  const config = (label: string, sshKey = KEY): ObjectValue => ({ id: null, label, ssh_key: sshKey, created: null });

  async function create(label: string): Promise<ObjectValue> {
    const plan = await provider.planResourceChange("mgmt_ssh_key", { priorState: null, proposedNewState: config(label), config: config(label) });
    expect(plan.plannedState).toMatchObject({ id: Unknown, created: Unknown });
    const applied = await provider.applyResourceChange("mgmt_ssh_key", { priorState: null, plannedState: plan.plannedState, config: config(label) });
    expect(applied.diagnostics).toEqual([]);
    return applied.newState!;
  }

  it("creates, reads, updates in place and deletes", async () => {
    const state = await create("laptop");
    expect(state).toMatchObject({ label: "laptop", ssh_key: KEY, id: expect.stringMatching(/^\d+$/), created: expect.stringMatching(/Z$/) });

    const read = await provider.readResource("mgmt_ssh_key", state);
    expect(read.newState).toEqual(state);

    const planned = { ...state, label: "work" };
    const plan = await provider.planResourceChange("mgmt_ssh_key", { priorState: state, proposedNewState: planned, config: config("work") });
    expect(plan).toMatchObject({ plannedState: planned, requiresReplace: [] });
    const updated = await provider.applyResourceChange("mgmt_ssh_key", { priorState: state, plannedState: plan.plannedState, config: config("work") });
    expect(updated.newState).toEqual(planned);

    const deleted = await provider.applyResourceChange("mgmt_ssh_key", { priorState: updated.newState, plannedState: null, config: null });
    expect(deleted).toEqual({ newState: null, diagnostics: [] });
    expect((await provider.readResource("mgmt_ssh_key", state)).newState).toBeNull();
    // Deleting what is already gone succeeds.
    expect((await provider.applyResourceChange("mgmt_ssh_key", { priorState: state, plannedState: null, config: null })).diagnostics).toEqual([]);
  });

  it("imports by id and refuses ids that do not exist or are not ids", async () => {
    const state = await create("to import");
    const imported = await provider.importResourceState("mgmt_ssh_key", String(state.id));
    expect(imported.imported).toEqual([{ typeName: "mgmt_ssh_key", state }]);

    const missing = await provider.importResourceState("mgmt_ssh_key", "999999");
    expect(missing.diagnostics[0]).toMatchObject({ severity: "error", summary: "Cannot import non-existent remote object" });
    const bad = await provider.importResourceState("mgmt_ssh_key", "laptop");
    expect(bad.diagnostics[0]!.detail).toMatch(/not a valid id/);
  });

  it("reports API refusals as diagnostics on the attribute", async () => {
    const badKey = KEY.replace("ssh-ed25519", "ssh-rsa");
    const applied = await provider.applyResourceChange("mgmt_ssh_key", {
      priorState: null,
      plannedState: { ...config("x", badKey), id: Unknown, created: Unknown },
      config: config("x", badKey),
    });
    expect(applied.diagnostics[0]).toMatchObject({ severity: "error", attribute: [{ attribute: "ssh_key" }] });
  });

  it("reads the profile data source", async () => {
    const { state, diagnostics } = await provider.readDataSource("mgmt_profile", {});
    expect(diagnostics).toEqual([]);
    expect(state).toMatchObject({
      id: expect.any(String),
      username: expect.any(String),
      restricted: false,
      referrals: expect.objectContaining({ code: expect.any(String) }),
    });
  });

  it("counts a label's length as the API does (characters, not UTF-16 units), so plan refuses what apply would", async () => {
    const labelProblems = async (label: string) =>
      (await provider.validateResourceConfig("mgmt_ssh_key", config(label))).diagnostics.map((d) => `${d.summary}: ${d.detail}`);
    expect(await labelProblems("🙂".repeat(33))).toEqual([]);
    expect(await labelProblems("🙂".repeat(64))).toEqual([]);
    expect(await labelProblems("🙂".repeat(65))).toEqual(["Invalid label: label: Length must be between 1 and 64 characters."]);
    expect(await labelProblems("")).toEqual(["Invalid label: label: Length must be between 1 and 64 characters."]);
  });

  it("names an unknown type", async () => {
    const r = await provider.readDataSource("mgmt_nothing", {});
    expect(r.diagnostics[0]!.summary).toMatch(/no data source type "mgmt_nothing"/);
  });

  it("refuses to configure without url or token, naming the attribute", async () => {
    const bare = createProvider({ env: {} });
    const { diagnostics } = await bare.configure({ url: null, token: null });
    expect(diagnostics.map((d) => d.attribute)).toEqual([[{ attribute: "url" }], [{ attribute: "token" }]]);
  });
});
