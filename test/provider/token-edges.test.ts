/** @tier unit */
/**
 * mgmt_token's edge values refused at validate and plan (issue 44, item 5), naming the attribute,
 * before anything is created: a renewal window as long as the lifetime, a lifetime under a minute,
 * an expiry in the past or past what the API's timestamps can show. No raw JavaScript error text.
 */
import { expiryProblems, lifetimeProblems } from "../../src/provider/resources/token/lifetime";
import { create, destroy, importState, plan, startHarness, validate, type Harness } from "./harness";

const T = "mgmt_token";
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe("the rules", () => {
  const now = new Date("2030-01-01T00:00:00Z");
  test("renew_before must be shorter than expires_in; expires_in at least a minute", () => {
    expect(lifetimeProblems("720h", "720h").map((p) => p.attribute)).toEqual(["renew_before"]);
    expect(lifetimeProblems("720h", "721h").map((p) => p.attribute)).toEqual(["renew_before"]);
    expect(lifetimeProblems("720h", "719h")).toEqual([]);
    expect(lifetimeProblems("1ms", undefined).map((p) => p.attribute)).toEqual(["expires_in"]);
    expect(lifetimeProblems("59s", undefined).map((p) => p.attribute)).toEqual(["expires_in"]);
    expect(lifetimeProblems("1m", undefined)).toEqual([]);
    expect(lifetimeProblems(undefined, "24h")).toEqual([]);
  });
  test("an expiry must be in the future and at or before 9999-12-31T23:59:59Z", () => {
    expect(expiryProblems("2029-12-31T23:59:59Z", undefined, now).map((p) => p.attribute)).toEqual(["expiry"]);
    expect(expiryProblems("2030-01-01T00:00:00Z", undefined, now).map((p) => p.attribute)).toEqual(["expiry"]);
    expect(expiryProblems("9999-12-31T23:59:59Z", undefined, now)).toEqual([]);
    expect(expiryProblems("9999-12-31T23:59:59-00:01", undefined, now).map((p) => p.attribute)).toEqual(["expiry"]);
    expect(expiryProblems(undefined, "70000000h", now).map((p) => p.attribute)).toEqual(["expires_in"]);
    expect(expiryProblems(undefined, "2160h", now)).toEqual([]);
  });
});

describe("through the provider", () => {
  test("validate names renew_before and expires_in", async () => {
    for (const [values, attribute] of [
      [{ label: "x", expires_in: "24h", renew_before: "24h" }, "renew_before"],
      [{ label: "x", expires_in: "1ms" }, "expires_in"],
    ] as const) {
      const diags = await validate(h, T, values);
      expect(diags).toEqual([expect.objectContaining({ severity: "error", summary: `Invalid ${attribute}`, attribute: [{ attribute }] })]);
    }
  });

  test("plan refuses an expiry in the past or past year 9999, and a lifetime reaching past it, without raw error text", async () => {
    for (const [values, attribute] of [
      [{ label: "x", expiry: "2001-01-01T00:00:00Z" }, "expiry"],
      [{ label: "x", expiry: "9999-12-31T23:59:59-01:00" }, "expiry"],
      [{ label: "x", expires_in: "80000000h" }, "expires_in"],
    ] as const) {
      const failed = await plan(h, T, null, values).then(
        () => "planned",
        (err: Error) => err.message,
      );
      expect(failed).toContain(`Invalid ${attribute}`);
      expect(failed).toContain(`"attribute":"${attribute}"`);
      expect(failed).not.toMatch(/Invalid time value|RangeError|TypeError/);
    }
  });
});

describe("the token the provider acts with", () => {
  test("is not revoked by a destroy of its imported state: an error names it and how to rotate it; other tokens go", async () => {
    let acting: number | undefined;
    for await (const t of h.client.listTokens()) if (t.token === h.server.token!.slice(0, 16)) acting = t.id;
    expect(acting).toBeDefined();
    const imported = await importState(h, T, String(acting));
    expect(imported.state).not.toBeNull();
    const r = await h.provider.applyResourceChange(T, { priorState: imported.state!, plannedState: null, config: null });
    expect(r.diagnostics).toEqual([expect.objectContaining({ severity: "error", detail: expect.stringContaining("the token this provider acts with") })]);
    expect(JSON.stringify(r.diagnostics)).not.toContain(h.server.token!);
    // Still usable: the provider's own client goes on.
    await expect(h.client.getToken(acting!)).resolves.toMatchObject({ id: acting });

    const other = await create(h, T, { label: "other" });
    expect(await destroy(h, T, other)).toEqual([]);
  });
});
