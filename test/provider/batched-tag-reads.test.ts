/** @tier unit */
/**
 * Tags in a batched refresh: the label list and one question to the events feed answer every tag
 * whose objects nothing could have changed; a tag the feed shows touched is read on its own.
 * Counted on the wire through a proxy in front of a real mgmt serve.
 */
import { MgmtClient } from "../../src/client";
import { Scopes } from "../../src/contract/scopes";
import { createProvider } from "../../src/provider";
import type { ProviderServer } from "../../src/provider/framework/server";
import type { ObjectValue } from "../../src/provider/framework/value";
import { silentLogger, startServer, type RunningServer } from "../../src/server";
import { FaultProxy } from "../../testkit/fault-proxy";

const N = 12;
let server: RunningServer;
let proxy: FaultProxy;
let client: MgmtClient;
let computes: number[];

/** A tag as the engine keeps it: state and private bytes. */
interface Kept {
  state: ObjectValue;
  private?: Uint8Array;
}

beforeAll(async () => {
  server = await startServer({ logger: silentLogger });
  proxy = await FaultProxy.start(server.url);
  client = new MgmtClient({ url: server.url, token: server.token! });
  computes = [];
  for (let i = 0; i < 3; i++) computes.push((await server.domain.objects.seedCompute({ label: `web-${i}`, region: "eu-west" })).id);
});
afterAll(async () => {
  await client.close();
  await proxy.close();
  await server.close();
});

function provider(options: { batch?: boolean; token?: string; now?: () => Date } = {}): Promise<ProviderServer> {
  const p = createProvider({ env: { MGMT_URL: proxy.url, MGMT_TOKEN: options.token ?? server.token! }, ...(options.now ? { now: options.now } : {}) });
  return p.configure(options.batch === undefined ? {} : { batch_reads: options.batch }).then((c) => {
    expect(c.diagnostics).toEqual([]);
    proxy.counters.seen.length = 0;
    return p;
  });
}

const tagConfig = (label: string, ids: number[] | null): ObjectValue => ({ id: null, label, computes: ids, domains: null, volumes: null, nodebalancers: null });

/** Tags made through the provider, as an apply leaves them in the engine's state. */
async function createTags(prefix: string, n: number, objects = computes): Promise<Kept[]> {
  const p = await provider();
  const kept: Kept[] = [];
  for (let i = 0; i < n; i++) {
    const config = tagConfig(`${prefix}-${i}`, [objects[i % objects.length]!]);
    const applied = await p.applyResourceChange("mgmt_tag", { priorState: null, plannedState: { ...config, id: config.label }, config });
    expect(applied.diagnostics).toEqual([]);
    kept.push({ state: applied.newState!, ...(applied.private ? { private: applied.private } : {}) });
  }
  await p.close();
  return kept;
}

async function refreshAll(p: ProviderServer, tags: Kept[]): Promise<Kept[]> {
  const results = await Promise.all(tags.map((t) => p.readResource("mgmt_tag", t.state, t.private)));
  for (const r of results) expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return results.map((r) => ({ state: r.newState!, ...(r.private ? { private: r.private } : {}) }));
}

const requests = () => [...proxy.counters.seen].sort();

describe("batched tag reads", () => {
  it("answers every unchanged tag from the label list and one question to the events feed", async () => {
    const tags = await createTags("steady", N);
    expect(tags.every((t) => t.private !== undefined)).toBe(true);

    const batched = await provider();
    const refreshed = await refreshAll(batched, tags);
    expect(refreshed.map((t) => t.state)).toEqual(tags.map((t) => t.state));
    expect(requests()).toEqual(["GET /account/events", "GET /tags"]);

    // The refreshed marks serve the next refresh the same way.
    const again = await provider();
    expect((await refreshAll(again, refreshed)).map((t) => t.state)).toEqual(tags.map((t) => t.state));
    expect(requests()).toEqual(["GET /account/events", "GET /tags"]);

    const single = await provider({ batch: false });
    expect((await refreshAll(single, tags)).map((t) => t.state)).toEqual(tags.map((t) => t.state));
    expect(requests()).toEqual(tags.map((t) => `GET /tags/${t.state.label as string}`).sort());
  });

  it("asks the feed once for marks spread over a long apply, whatever order the reads come in", async () => {
    const tags = await createTags("spread", 3);
    const markedAgo = (t: Kept, minutes: number): Kept => ({
      state: t.state,
      private: new TextEncoder().encode(JSON.stringify({ objects_read_at: new Date(Date.now() - minutes * 60_000).toISOString() })),
    });
    const p = await provider();
    for (const [t, minutes] of [
      [tags[0]!, 1],
      [tags[1]!, 20],
      [tags[2]!, 45],
    ] as const) {
      expect((await p.readResource("mgmt_tag", t.state, markedAgo(t, minutes).private)).newState).toEqual(t.state);
    }
    expect(requests()).toEqual(["GET /account/events", "GET /tags"]);
  });

  it("reads on its own a tag deleted and made again out of band with other objects, and drops one deleted", async () => {
    const tags = await createTags("drift", 3);
    await client.deleteTag("drift-0");
    await client.createTag({ label: "drift-0", computes: [computes[1]!, computes[2]!] });
    await client.deleteTag("drift-1");

    const p = await provider();
    const [remade, deleted, kept] = await Promise.all(tags.map((t) => p.readResource("mgmt_tag", t.state, t.private)));
    expect(remade!.newState).toMatchObject({ label: "drift-0", computes: [computes[1], computes[2]].sort((a, b) => a! - b!) });
    expect(deleted!.newState).toBeNull();
    expect(kept!.newState).toEqual(tags[2]!.state);
    expect(requests()).toEqual(["GET /account/events", "GET /tags", "GET /tags/drift-0", "GET /tags/drift-1"]);
  });

  it("reads every tag on its own after an object event: a transfer took an instance and its tags", async () => {
    const leaving = (await server.domain.objects.seedCompute({ label: "leaving", region: "eu-west" })).id;
    const tags = await createTags("moved", 2, [leaving, computes[1]!]);
    const account = await server.store.accounts.insert({ euuid: "RECEIVER-ACCT", active_since: "2025-01-01T00:00:00" });
    const receiverUser = await server.domain.users.create({ username: "receiver", email: "r@example.com", accountId: account.id });
    const scopes = Scopes.parse("*");
    if (!scopes.ok) throw new Error(scopes.reason);
    const receiver = (await server.domain.tokens.mint({ userId: receiverUser.id, label: "receiver", scopes: scopes.scopes, expiry: null })).token;
    // The client has no transfer operations (no resource needs them): plain requests.
    const post = async (path: string, token: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { token: string };
    };
    const transfer = await post("/account/entity-transfers", server.token!, { entities: { computes: [leaving] } });
    await post(`/account/entity-transfers/${transfer.token}/accept`, receiver, {});

    const p = await provider();
    const [lost, other] = await refreshAll(p, tags);
    expect(lost!.state.computes).toEqual([]);
    expect(other!.state).toEqual(tags[1]!.state);
    expect(requests()).toEqual(["GET /account/events", "GET /tags", "GET /tags/moved-0", "GET /tags/moved-1"]);
  });

  it("reads on its own a tag with no mark, a mark older than the feed reaches, or when the feed is not the token's", async () => {
    const tags = await createTags("plain", 2);
    const p = await provider();
    await refreshAll(p, [{ state: tags[0]!.state }]);
    expect(requests()).toEqual(["GET /tags/plain-0"]);

    const later = await provider({ now: () => new Date(Date.now() + 90 * 24 * 3600_000) });
    await refreshAll(later, tags);
    expect(requests()).toEqual(["GET /tags/plain-0", "GET /tags/plain-1"]);

    const noEvents = await client.createToken({ label: "no events", scopes: "account:read_write" });
    const scoped = await provider({ token: noEvents.token! });
    expect((await refreshAll(scoped, tags)).map((t) => t.state)).toEqual(tags.map((t) => t.state));
    expect(requests()).toEqual(["GET /account/events", "GET /tags", "GET /tags/plain-0", "GET /tags/plain-1"]);
  });
});
