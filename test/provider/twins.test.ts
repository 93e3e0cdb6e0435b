/** @tier unit */
/**
 * Twins named before they are made: a plan that creates an object warns of each live object that
 * is its exact twin and that no state this provider instance has seen holds (what an apply killed
 * before the engine recorded its create leaves), with its id and the import block that adopts it;
 * it adopts nothing. What the instance has seen in state (refreshed, planned, created, imported)
 * is never named.
 */
import type { Diagnostic } from "../../src/provider/framework/diagnostics";
import { sshKeyText } from "../../testkit/ssh-keys";
import { create, importState, plan, refresh, startHarness, type Harness } from "./harness";

const twinWarnings = (diags: readonly Diagnostic[]) => diags.filter((d) => d.severity === "warning" && d.summary.includes("already exists outside the state"));
const namedIds = (diags: readonly Diagnostic[]) => twinWarnings(diags).map((d) => /"(\w+)" already exists/.exec(d.summary)![1]);

describe("twins at plan", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it("names an SSH key with the same label and public key outside state, with the import block, and plans the create as before", async () => {
    const key = sshKeyText("ed25519", "orphan@twins");
    const orphan = await h.client.createSshKey({ label: "runner", ssh_key: key });
    // Same key under another label, and another key under the label: not twins.
    await h.client.createSshKey({ label: "other", ssh_key: key });
    await h.client.createSshKey({ label: "runner", ssh_key: sshKeyText("ed25519", "else@twins") });

    // A different comment is the same key.
    const planned = await plan(h, "mgmt_ssh_key", null, { label: "runner", ssh_key: `${key.split(" ").slice(0, 2).join(" ")} laptop` });
    expect(namedIds(planned.diagnostics)).toEqual([String(orphan.id)]);
    const [warning] = twinWarnings(planned.diagnostics);
    expect(warning!.detail).toContain(`import {\n  to = mgmt_ssh_key.<name>\n  id = "${orphan.id}"\n}`);
    expect(warning!.detail).toContain("never adopts it by itself");
    expect(planned.plannedState.id).not.toBe(String(orphan.id));
  });

  it("does not name an object the instance has seen in state: refreshed, created or imported", async () => {
    const key = sshKeyText("ed25519", "kept@twins");
    // Made before this instance lists: a plan run is one engine command, which sees the account as it was when it began.
    const byHand = await h.client.createSshKey({ label: "imported", ssh_key: key });
    const made = await create(h, "mgmt_ssh_key", { label: "made", ssh_key: key });
    expect(namedIds((await plan(h, "mgmt_ssh_key", null, { label: "made", ssh_key: key })).diagnostics)).toEqual([]);

    expect(namedIds((await plan(h, "mgmt_ssh_key", null, { label: "imported", ssh_key: key })).diagnostics)).toEqual([String(byHand.id)]);
    const { state } = await importState(h, "mgmt_ssh_key", String(byHand.id));
    expect(namedIds((await plan(h, "mgmt_ssh_key", null, { label: "imported", ssh_key: key })).diagnostics)).toEqual([]);
    expect((await refresh(h, "mgmt_ssh_key", state!)).state).not.toBeNull();
    expect(made.id).not.toBe(String(byHand.id));
  });

  it("names a token with the same label and scopes created in the last day, not an older one, another scope or the acting token", async () => {
    const fresh = await h.client.createToken({ label: "deployer", scopes: "events:read_only" });
    await h.client.createToken({ label: "deployer", scopes: "account:read_only" });
    const planned = await plan(h, "mgmt_token", null, { label: "deployer", scopes: "events:read_only" });
    expect(namedIds(planned.diagnostics)).toEqual([String(fresh.id)]);
    expect(JSON.stringify(planned.diagnostics)).not.toContain(fresh.token);

    // Omitted scopes are the acting token's, unknown at plan: the label and the day decide.
    expect(namedIds((await plan(h, "mgmt_token", null, { label: "deployer" })).diagnostics).sort()).toHaveLength(2);

    // A day later (the provider's clock) it is no longer what this run's interrupted apply left.
    h.now = new Date(h.now.getTime() + 25 * 3600_000);
    expect(namedIds((await plan(h, "mgmt_token", null, { label: "deployer", scopes: "events:read_only" })).diagnostics)).toEqual([]);
  });

  it("names an OAuth client with the same label and redirect URI", async () => {
    const twin = await h.client.createOAuthClient({ label: "portal", redirect_uri: "https://example.com/cb" });
    await h.client.createOAuthClient({ label: "portal", redirect_uri: "https://example.com/other" });
    const planned = await plan(h, "mgmt_oauth_client", null, { label: "portal", redirect_uri: "https://example.com/cb" });
    expect(namedIds(planned.diagnostics)).toEqual([twin.id]);
    expect(JSON.stringify(planned.diagnostics)).not.toContain(twin.secret);
  });
});

describe("twins and refreshes in the same plan", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it("does not name an object another resource of the run has refreshed", async () => {
    const key = sshKeyText("ed25519", "twice@twins");
    const first = await h.client.createSshKey({ label: "same", ssh_key: key });
    const state = { id: String(first.id), label: "same", ssh_key: key, created: null };
    await refresh(h, "mgmt_ssh_key", state);
    expect(namedIds((await plan(h, "mgmt_ssh_key", null, { label: "same", ssh_key: key })).diagnostics)).toEqual([]);
  });
});
