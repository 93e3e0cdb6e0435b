import { planChange, settleApplied, settleRead, valuesEqual } from "../../src/provider/framework/lifecycle";
import type { ResourceDefinition } from "../../src/provider/framework/resource";
import { Unknown, type ObjectValue } from "../../src/provider/framework/value";
import { sshKeyResource } from "../../src/provider/resources/ssh-key";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBeUztkPweGIUCJOwHlxqcQTvr98iCN4oYELKVoUNI4u alice@laptop";
const SAME_KEY_OTHER_COMMENT = "  ssh-ed25519   AAAAC3NzaC1lZDI1NTE5AAAAIBeUztkPweGIUCJOwHlxqcQTvr98iCN4oYELKVoUNI4u   alice@desktop\n";
const OTHER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP6/CI1S2PzAHh0e+PwX46WPogTSnk/LV4ych5nTJ2D4 bob";

const def = sshKeyResource as ResourceDefinition<unknown>;
const prior = { id: "7", label: "laptop", ssh_key: KEY, created: "2026-11-21T06:00:00Z" };

describe("planChange", () => {
  it("marks computed attributes unknown on create and keeps configured ones", () => {
    const config = { id: null, label: "laptop", ssh_key: KEY, created: null };
    const { plannedState, requiresReplace } = planChange(def, null, config, config);
    expect(plannedState).toEqual({ id: Unknown, label: "laptop", ssh_key: KEY, created: Unknown });
    expect(requiresReplace).toEqual([]);
  });

  it("plans a label change in place, keeping id and created", () => {
    const config = { id: null, label: "work laptop", ssh_key: KEY, created: null };
    const proposed = { ...config, id: prior.id, created: prior.created };
    const { plannedState, requiresReplace } = planChange(def, prior, proposed, config);
    expect(plannedState).toEqual({ ...prior, label: "work laptop" });
    expect(requiresReplace).toEqual([]);
  });

  it("treats the same key with another comment or spacing as no change", () => {
    const config = { id: null, label: "laptop", ssh_key: SAME_KEY_OTHER_COMMENT, created: null };
    const proposed = { ...config, id: prior.id, created: prior.created };
    const { plannedState, requiresReplace } = planChange(def, prior, proposed, config);
    expect(plannedState).toEqual(prior);
    expect(requiresReplace).toEqual([]);
  });

  it("requires replacement when the key itself changes", () => {
    const config = { id: null, label: "laptop", ssh_key: OTHER_KEY, created: null };
    const proposed = { ...config, id: prior.id, created: prior.created };
    const { plannedState, requiresReplace } = planChange(def, prior, proposed, config);
    expect(plannedState?.ssh_key).toBe(OTHER_KEY);
    expect(requiresReplace).toEqual([[{ attribute: "ssh_key" }]]);
  });

  it("keeps an unknown configured key unknown and asks for replacement", () => {
    const config: ObjectValue = { id: null, label: "laptop", ssh_key: Unknown, created: null };
    const proposed = { ...config, id: prior.id, created: prior.created };
    const { plannedState, requiresReplace } = planChange(def, prior, proposed, config);
    expect(plannedState?.ssh_key).toBe(Unknown);
    expect(requiresReplace).toEqual([[{ attribute: "ssh_key" }]]);
  });

  it("plans null for a destroy", () => {
    expect(planChange(def, prior, null, null)).toEqual({ plannedState: null, requiresReplace: [] });
  });
});

describe("settling results", () => {
  it("fills unknowns from the API and keeps planned known values", () => {
    const planned: ObjectValue = { id: Unknown, label: "laptop", ssh_key: SAME_KEY_OTHER_COMMENT, created: Unknown };
    const fromApi = { id: "9", label: "laptop", ssh_key: KEY, created: "2026-11-21T07:00:00Z" };
    expect(settleApplied(planned, fromApi)).toEqual({ ...fromApi, ssh_key: SAME_KEY_OTHER_COMMENT });
  });

  it("keeps the state's form of an equivalent value on read but shows real drift", () => {
    const state = { ...prior, ssh_key: SAME_KEY_OTHER_COMMENT };
    expect(settleRead(def, state, prior).ssh_key).toBe(SAME_KEY_OTHER_COMMENT);
    expect(settleRead(def, state, { ...prior, ssh_key: OTHER_KEY, label: "renamed" })).toMatchObject({ ssh_key: OTHER_KEY, label: "renamed" });
  });

  it("compares nested values structurally", () => {
    expect(valuesEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] })).toBe(true);
    expect(valuesEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "y" }] })).toBe(false);
    expect(valuesEqual({ a: null }, {})).toBe(true);
    expect(valuesEqual(Unknown, null)).toBe(false);
  });
});

describe("mgmt_ssh_key validation", () => {
  const validate = (config: Record<string, unknown>) => sshKeyResource.validate!({ id: null, created: null, label: "k", ssh_key: KEY, ...config } as never);

  it("accepts a valid config and skips unknown values", () => {
    expect(validate({})).toEqual([]);
    expect(validate({ label: Unknown, ssh_key: Unknown })).toEqual([]);
  });

  it("refuses an empty or too long label, naming the attribute", () => {
    for (const label of ["", "x".repeat(65)]) {
      const [d] = validate({ label });
      expect(d).toMatchObject({ severity: "error", attribute: [{ attribute: "label" }] });
    }
    expect(validate({ label: "x".repeat(64) })).toEqual([]);
  });

  it("refuses a key whose algorithm does not match its data", () => {
    const [d] = validate({ ssh_key: KEY.replace("ssh-ed25519", "ssh-rsa") });
    expect(d).toMatchObject({ severity: "error", attribute: [{ attribute: "ssh_key" }] });
    expect(d!.detail).toMatch(/does not match/);
  });
});
