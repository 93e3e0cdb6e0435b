/**
 * A token's rotation under renew_before, through a fault proxy that sees each request arrive: the
 * new token is created while the old one still answers, recorded, and only then is the old one
 * revoked; a stop (the engine's Ctrl-C) leaves a valid token in state at every point.
 */
import { MgmtClient } from "../../src/client";
import { createProvider } from "../../src/provider";
import type { ProviderServer } from "../../src/provider/framework/server";
import { Unknown, type ObjectValue } from "../../src/provider/framework/value";
import { silentLogger, startServer, type RunningServer } from "../../src/server";
import { FaultProxy } from "../../testkit/fault-proxy";

let server: RunningServer;
let proxy: FaultProxy;
let provider: ProviderServer;
let now: Date;

beforeEach(async () => {
  server = await startServer({ logger: silentLogger });
  proxy = await FaultProxy.start(server.url);
  now = new Date();
  provider = createProvider({ env: { MGMT_URL: proxy.url, MGMT_TOKEN: server.token! }, now: () => now });
  expect((await provider.configure({})).diagnostics).toEqual([]);
});
afterEach(async () => {
  await provider.close();
  await proxy.close();
  await server.close();
});

const config: ObjectValue = { id: null, label: "ci", scopes: null, expiry: null, expires_in: "2160h", renew_before: "168h", token: null, created: null };

/** What a token value gets from the API: 200 while valid, 401 once revoked. */
async function answers(token: string): Promise<number> {
  const c = new MgmtClient({ url: server.url, token, retry: { maxRetries: 0 } });
  try {
    await c.getProfile();
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  } finally {
    await c.close();
  }
}

async function created(): Promise<ObjectValue> {
  const plan = await provider.planResourceChange("mgmt_token", { priorState: null, proposedNewState: config, config });
  const applied = await provider.applyResourceChange("mgmt_token", { priorState: null, plannedState: plan.plannedState, config });
  expect(applied.diagnostics).toEqual([]);
  return applied.newState!;
}

/** Plans at a moment inside the renewal window (89 of 90 days gone). */
async function planRotation(prior: ObjectValue) {
  now = new Date(now.getTime() + 89 * 24 * 3600_000);
  const proposed: ObjectValue = { ...config, id: prior.id, scopes: prior.scopes, token: prior.token, expiry: prior.expiry, created: prior.created };
  return provider.planResourceChange("mgmt_token", { priorState: prior, proposedNewState: proposed, config });
}

describe("mgmt_token rotation", () => {
  it("plans an in-place update that says why, not a replacement", async () => {
    const prior = await created();
    const plan = await planRotation(prior);
    expect(plan.requiresReplace).toEqual([]);
    expect(plan.plannedState).toMatchObject({ id: Unknown, token: Unknown, expiry: Unknown, created: Unknown, label: "ci" });
    const day = String(prior.expiry).slice(0, 10);
    expect(plan.diagnostics).toEqual([
      expect.objectContaining({ severity: "warning", summary: `Rotating the token: expires ${day}, inside renew_before 168h` }),
    ]);
  });

  it("creates the new token while the old one answers, records it, then revokes the old", async () => {
    const prior = await created();
    const old = String(prior.token);
    const plan = await planRotation(prior);
    const seen: string[] = [];
    const oldWhileCreating: Promise<number>[] = [];
    proxy.rule = (method, path) => {
      if (!path.startsWith("/profile/tokens")) return undefined;
      seen.push(`${method} ${path}`);
      if (method === "POST") oldWhileCreating.push(answers(old));
      return undefined;
    };
    const applied = await provider.applyResourceChange("mgmt_token", { priorState: prior, plannedState: plan.plannedState, config });
    expect(applied.diagnostics).toEqual([]);
    const next = applied.newState!;
    expect(next.id).not.toBe(prior.id);
    // The create went first; the revoke of the old one is the last request.
    expect(seen[0]).toBe("POST /profile/tokens");
    expect(seen.at(-1)).toBe(`DELETE /profile/tokens/${String(prior.id)}`);
    expect(await Promise.all(oldWhileCreating)).toEqual([200]);
    expect(await answers(old)).toBe(401);
    expect(await answers(String(next.token))).toBe(200);
  });

  it("a stop before the create leaves the old token alive and recorded", async () => {
    const prior = await created();
    const plan = await planRotation(prior);
    await provider.stop();
    const applied = await provider.applyResourceChange("mgmt_token", { priorState: prior, plannedState: plan.plannedState, config });
    expect(applied.diagnostics.some((d) => d.severity === "error")).toBe(true);
    expect(applied.newState).toEqual(prior);
    expect(await answers(String(prior.token))).toBe(200);
  });

  it("a stop while the create is in flight finishes the rotation: the new token recorded, the old revoked", async () => {
    const prior = await created();
    const plan = await planRotation(prior);
    proxy.rule = (method, path) => {
      if (method !== "POST" || path !== "/profile/tokens") return undefined;
      void provider.stop();
      return { kind: "delay", ms: 50 };
    };
    const applied = await provider.applyResourceChange("mgmt_token", { priorState: prior, plannedState: plan.plannedState, config });
    expect(applied.diagnostics).toEqual([]);
    expect(await answers(String(applied.newState!.token))).toBe(200);
    expect(await answers(String(prior.token))).toBe(401);
  });
});
