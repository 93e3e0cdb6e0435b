/** @tier unit */
/** mgmt_token against mgmt serve: the value kept from create, semantic scopes and instants, lifetimes and renewal. */
import { Unknown } from "../../src/provider/framework/value";
import { dueForRenewal } from "../../src/provider/resources/token/resource";
import { apply, changes, create, destroy, importState, plan, refresh, startHarness, validate, type Harness } from "./harness";

const T = "mgmt_token";
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe("mgmt_token", () => {
  it("creates with the acting token's scopes when none are set, and keeps the value the create showed", async () => {
    const state = await create(h, T, { label: "ci" });
    expect(state).toMatchObject({ label: "ci", scopes: "*", expiry: null, id: expect.stringMatching(/^\d+$/) });
    expect(typeof state.token).toBe("string");
    expect((state.token as string).length).toBeGreaterThan(16);
    // Reads answer only the first 16 characters; the state keeps the whole value.
    const live = await h.client.getToken(Number(state.id));
    expect(live.token).toHaveLength(16);
    const read = await refresh(h, T, state);
    expect(read.state).toEqual(state);
    // And the value works.
    const { MgmtClient } = await import("../../src/client");
    const asToken = new MgmtClient({ url: h.server.url, token: state.token as string });
    await expect(asToken.getProfile()).resolves.toMatchObject({ username: expect.any(String) });
    await asToken.close();
  });

  it("compares scopes semantically: order, repetition and implied read_only are no change; a real change replaces", async () => {
    const state = await create(h, T, { label: "scoped", scopes: "account:read_write events:read_only" });
    for (const same of ["events:read_only account:read_write", "account:read_only account:read_write  events:read_only"]) {
      const p = await plan(h, T, state, { label: "scoped", scopes: same });
      expect(changes(h, T, state, p.plannedState)).toEqual([]);
    }
    const wider = await plan(h, T, state, { label: "scoped", scopes: "account:read_write events:read_write" });
    expect(wider.requiresReplace).toEqual(["scopes"]);
  });

  it("warns at plan, on scopes, of an area the API does not name, with the closest one; the API still accepts it", async () => {
    const p = await plan(h, T, null, { label: "typo", scopes: "acount:read_only events:read_only evnts:read_write" });
    expect(p.diagnostics).toEqual([
      {
        severity: "warning",
        summary: 'Unknown scope area "acount"',
        detail:
          'The API names the scope areas account, child_account, events; "acount" is none of them (did you mean "account"?). The API accepts it, but it grants nothing.',
        attribute: [{ attribute: "scopes" }],
      },
      expect.objectContaining({ summary: 'Unknown scope area "evnts"', detail: expect.stringContaining('did you mean "events"?') }),
    ]);
    for (const fine of ["*", "account:read_write child_account:read_only events:read_only"]) {
      expect((await plan(h, T, null, { label: "fine", scopes: fine })).diagnostics).toEqual([]);
    }
    expect(await create(h, T, { label: "typo", scopes: "acount:read_only" })).toMatchObject({ scopes: "acount:read_only" });
  });

  it("renames in place, keeping id, value and created", async () => {
    const state = await create(h, T, { label: "before" });
    const r = await apply(h, T, state, { label: "after" });
    expect(r.planned.requiresReplace).toEqual([]);
    expect(r.state).toEqual({ ...state, label: "after" });
    expect((await h.client.getToken(Number(state.id))).label).toBe("after");
  });

  it("compares expiry as an instant in any offset; another instant replaces", async () => {
    const state = await create(h, T, { label: "dated", expiry: "2031-06-01T09:00:00+09:00" });
    expect(state.expiry).toBe("2031-06-01T09:00:00+09:00");
    expect((await h.client.getToken(Number(state.id))).expiry).toBe("2031-06-01T00:00:00");
    expect((await refresh(h, T, state)).state).toEqual(state);
    expect(changes(h, T, state, (await plan(h, T, state, { label: "dated", expiry: "2031-06-01T00:00:00Z" })).plannedState)).toEqual([]);
    expect((await plan(h, T, state, { label: "dated", expiry: "2031-06-01T00:00:01Z" })).requiresReplace).toEqual(["expiry"]);
  });

  it("computes expiry from expires_in at create and rotates in place within renew_before on the provider's clock", async () => {
    h.now = new Date("2030-01-01T00:00:00Z");
    const cfg = { label: "rotating", expires_in: "2160h", renew_before: "720h" };
    const state = await create(h, T, cfg);
    expect(state.expiry).toBe("2030-04-01T00:00:00Z");
    // Just outside the 30-day window, then a day inside it.
    h.now = new Date("2030-03-01T23:59:59Z");
    expect(changes(h, T, state, (await plan(h, T, state, cfg)).plannedState)).toEqual([]);
    h.now = new Date("2030-03-03T00:00:00Z");
    const due = await plan(h, T, state, cfg);
    // In place, not replaced: the engines' replacement would revoke the old token before the new one exists.
    expect(due.requiresReplace).toEqual([]);
    expect(due.plannedState.expiry).toBe(Unknown);
    expect(due.plannedState.id).toBe(Unknown);
    const rotated = await apply(h, T, state, cfg);
    expect(rotated.state!.id).not.toBe(state.id);
    expect(rotated.state!.token).not.toBe(state.token);
    expect(rotated.state!.expiry).toBe("2030-06-01T00:00:00Z");
    await expect(h.client.getToken(Number(state.id))).rejects.toMatchObject({ status: 404 });
    h.now = new Date();
  });

  it("decides the renewal window from the instant, whatever the offset", () => {
    const now = new Date("2030-01-01T00:00:00Z");
    expect(dueForRenewal("2030-01-02T00:00:00Z", "24h", now)).toBe(true);
    expect(dueForRenewal("2030-01-02T00:00:01Z", "24h", now)).toBe(false);
    expect(dueForRenewal("2030-01-02T09:00:00+09:00", "24h", now)).toBe(true);
  });

  it("removes a revoked token from state with a warning, and imports by id without the value", async () => {
    const state = await create(h, T, { label: "revoked" });
    const imported = await importState(h, T, String(state.id));
    expect(imported.state).toEqual({ ...state, token: null });
    await h.client.revokeToken(Number(state.id));
    const read = await refresh(h, T, state);
    expect(read.state).toBeNull();
    expect(read.diagnostics).toEqual([expect.objectContaining({ severity: "warning", summary: `mgmt_token "${String(state.id)}" no longer exists` })]);
    expect(await destroy(h, T, state)).toEqual([]);
  });

  it("refuses invalid values at validation, naming the attribute", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ label: "" }, "label"],
      [{ label: "x", scopes: "* account:read_only" }, "scopes"],
      [{ label: "x", scopes: "account:write" }, "scopes"],
      [{ label: "x", expiry: "2030-01-01 00:00" }, "expiry"],
      [{ label: "x", expiry: "2030-02-30T00:00:00Z" }, "expiry"],
      [{ label: "x", expires_in: "90d" }, "expires_in"],
      [{ label: "x", renew_before: "24h" }, "renew_before"],
    ];
    for (const [values, attribute] of cases) {
      const diags = await validate(h, T, values);
      expect(diags).toEqual([expect.objectContaining({ severity: "error", summary: `Invalid ${attribute}`, attribute: [{ attribute }] })]);
    }
    const both = await validate(h, T, { label: "x", expiry: "2030-01-01T00:00:00Z", expires_in: "24h" });
    expect(both).toEqual([expect.objectContaining({ summary: "Conflicting attributes" })]);
  });

  it("refuses an expiry in the past at plan, on the attribute (test/provider/token-edges.test.ts has the other edges)", async () => {
    await expect(apply(h, T, null, { label: "late", expiry: "2001-01-01T00:00:00Z" })).rejects.toThrow(/"attribute":"expiry"/);
  });
});
