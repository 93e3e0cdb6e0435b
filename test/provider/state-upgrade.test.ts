/** @tier unit */
/**
 * UpgradeResourceState's rules (src/provider/framework/state-upgrade.ts), and every real
 * resource's state from its own schema passing through unchanged.
 */
import { createProviderServer } from "../../src/provider/framework/provider-server";
import { schemaVersion, upgradeStoredState, type StateUpgrader } from "../../src/provider/framework/state-upgrade";
import { providerDefinition } from "../../src/provider";

const renameLabel: StateUpgrader = ({ label, ...rest }) => ({ ...rest, title: label });
const splitTags: StateUpgrader = (s) => ({ ...s, tags: typeof s.tags === "string" ? s.tags.split(",") : null });
const base = { typeName: "mgmt_note", attributes: ["id", "title", "tags", "added"], upgraders: [renameLabel, splitTags], providerVersion: "2.0.0" };

describe("upgradeStoredState", () => {
  it("counts one schema version per upgrader", () => {
    expect([schemaVersion(undefined), schemaVersion([]), schemaVersion(base.upgraders)]).toEqual([0, 0, 2]);
  });

  it("applies the upgraders from the stored version on, in order, and nulls attributes added since", () => {
    expect(upgradeStoredState({ ...base, version: 0, stored: { id: "1", label: "a", tags: "x,y" } })).toEqual({
      state: { id: "1", title: "a", tags: ["x", "y"], added: null },
    });
    expect(upgradeStoredState({ ...base, version: 1, stored: { id: "1", title: "a", tags: "x" } })).toEqual({
      state: { id: "1", title: "a", tags: ["x"], added: null },
    });
    expect(upgradeStoredState({ ...base, version: 2, stored: { id: "1", title: "a", tags: ["x"], added: true } })).toEqual({
      state: { id: "1", title: "a", tags: ["x"], added: true },
    });
  });

  it("refuses a state from a newer schema version, naming both versions and what to do", () => {
    const r = upgradeStoredState({ ...base, version: 3, stored: {} });
    expect(r).toEqual({ problem: expect.objectContaining({ severity: "error", summary: "Resource instance managed by a newer provider version" }) });
    const detail = "problem" in r ? r.problem.detail : "";
    expect(detail).toContain("has schema version 3");
    expect(detail).toContain("provider 2.0.0 knows schema versions up to 2");
    expect(detail).toContain("raise the provider's version constraint and run init -upgrade");
  });

  it("never drops an attribute the schema lacks: an attribute removed without an upgrader is an error naming it", () => {
    const r = upgradeStoredState({ ...base, upgraders: [renameLabel], version: 0, stored: { id: "1", label: "a", color: "red" } });
    expect(r).toEqual({ problem: expect.objectContaining({ summary: "Stored state has attributes this provider does not know" }) });
    expect("problem" in r && r.problem.detail).toContain('"color"');
  });

  it.each([[-1], [1.5]])("refuses schema version %p", (version) => {
    expect(upgradeStoredState({ ...base, version, stored: {} })).toEqual({ problem: expect.objectContaining({ summary: "Invalid stored state" }) });
  });

  it("refuses stored state that is not an object", () => {
    expect(upgradeStoredState({ ...base, version: 2, stored: ["a"] })).toEqual({ problem: expect.objectContaining({ summary: "Invalid stored state" }) });
  });
});

describe("the provider's resources", () => {
  const def = providerDefinition({});
  const server = createProviderServer(def);

  it.each(def.resources.map((r) => [r.typeName, r] as const))("%s: a state of its current version comes back as it was", async (typeName, r) => {
    const stored = Object.fromEntries(Object.keys(r.attributes).map((name) => [name, null]));
    const version = schemaVersion(r.upgraders);
    const result = await server.upgradeResourceState(typeName, version, stored);
    expect(result).toEqual({ upgradedState: stored, diagnostics: [] });
  });

  it("refuses a newer state through UpgradeResourceState with the release's version in the message", async () => {
    const result = await server.upgradeResourceState("mgmt_ssh_key", 99, {});
    expect(result.upgradedState).toBeNull();
    expect(result.diagnostics[0]?.detail).toContain(`provider ${def.version} knows schema versions up to 0`);
  });
});
