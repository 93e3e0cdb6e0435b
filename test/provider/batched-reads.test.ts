/** @tier unit */
/** A refresh of many objects in a handful of requests: counted on the wire, through a proxy in front of a real mgmt serve. */
import { MgmtClient } from "../../src/client";
import { createProvider } from "../../src/provider";
import type { ProviderServer } from "../../src/provider/framework/server";
import type { ObjectValue } from "../../src/provider/framework/value";
import { silentLogger, startServer, type RunningServer } from "../../src/server";
import { FaultProxy } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";

const N = 600;
let server: RunningServer;
let proxy: FaultProxy;
let client: MgmtClient;
let states: ObjectValue[];

beforeAll(async () => {
  server = await startServer({ logger: silentLogger });
  proxy = await FaultProxy.start(server.url);
  client = new MgmtClient({ url: server.url, token: server.token! });
  states = [];
  for (let i = 0; i < N; i++) {
    const k = await client.createSshKey({ label: `k${i}`, ssh_key: sshKeyText("ed25519", `k${i}`) });
    states.push({ id: String(k.id), label: k.label, ssh_key: k.ssh_key, created: `${k.created}Z` });
  }
});
afterAll(async () => {
  await client.close();
  await proxy.close();
  await server.close();
});

async function configured(batch: boolean | null): Promise<ProviderServer> {
  const p = createProvider({ env: { MGMT_URL: proxy.url, MGMT_TOKEN: server.token! } });
  expect((await p.configure(batch === null ? {} : { batch_reads: batch })).diagnostics).toEqual([]);
  proxy.counters.seen.length = 0;
  return p;
}

const refreshAll = (p: ProviderServer, list: ObjectValue[]) => Promise.all(list.map((s) => p.readResource("mgmt_ssh_key", s)));

describe("batched reads", () => {
  it("refreshes 600 keys with two list pages instead of 600 GETs, with the same results", async () => {
    const batched = await configured(null);
    const results = await refreshAll(batched, states);
    expect(proxy.counters.seen).toEqual(["GET /profile/sshkeys", "GET /profile/sshkeys"]);
    expect(results.map((r) => r.newState)).toEqual(states);

    const single = await configured(false);
    const one = await refreshAll(single, states);
    expect(proxy.counters.seen).toHaveLength(N);
    expect(one.map((r) => r.newState)).toEqual(states);
  });

  it("fetches an id the snapshot lacks, still drops a gone one, and reads an object again fresh", async () => {
    const p = await configured(true);
    await p.readResource("mgmt_ssh_key", states[0]!);
    const fresh = await client.createSshKey({ label: "fresh", ssh_key: sshKeyText("ed25519", "fresh") });
    const freshState = { id: String(fresh.id), label: "fresh", ssh_key: fresh.ssh_key, created: `${fresh.created}Z` };
    expect((await p.readResource("mgmt_ssh_key", freshState)).newState).toEqual(freshState);
    expect((await p.readResource("mgmt_ssh_key", { ...freshState, id: "99999999" })).newState).toBeNull();
    await client.updateSshKey(Number(states[0]!.id), { label: "renamed" });
    expect((await p.readResource("mgmt_ssh_key", states[0]!)).newState).toMatchObject({ label: "renamed" });
    await client.updateSshKey(Number(states[0]!.id), { label: "k0" });
    expect(proxy.counters.seen).toEqual([
      "GET /profile/sshkeys",
      "GET /profile/sshkeys",
      `GET /profile/sshkeys/${fresh.id}`,
      "GET /profile/sshkeys/99999999",
      `GET /profile/sshkeys/${String(states[0]!.id)}`,
    ]);
    await client.deleteSshKey(fresh.id);
  });

  it("lists once for the twin checks of an apply's creates, though each create comes between two of them", async () => {
    const p = await configured(null);
    const made: number[] = [];
    for (let i = 0; i < 3; i++) {
      const config = { id: null, label: `apply-${i}`, ssh_key: sshKeyText("ed25519", `apply-${i}`), created: null };
      const planned = await p.planResourceChange("mgmt_ssh_key", { priorState: null, proposedNewState: config, config });
      expect(planned.diagnostics).toEqual([]);
      const applied = await p.applyResourceChange("mgmt_ssh_key", { priorState: null, plannedState: planned.plannedState!, config });
      made.push(Number(applied.newState!.id));
    }
    // The account's 600 keys are two pages, listed by the first plan; each later plan looks in that listing.
    expect(proxy.counters.seen).toEqual(["GET /profile/sshkeys", "GET /profile/sshkeys", ...made.map(() => "POST /profile/sshkeys")]);
    for (const id of made) await client.deleteSshKey(id);
  });

  it("lists again after a write of the type", async () => {
    const p = await configured(true);
    await p.readResource("mgmt_ssh_key", states[1]!);
    const planned = { ...states[1]!, label: "k1-renamed" };
    await p.applyResourceChange("mgmt_ssh_key", { priorState: states[1]!, plannedState: planned, config: planned });
    await p.applyResourceChange("mgmt_ssh_key", { priorState: planned, plannedState: states[1]!, config: states[1]! });
    proxy.counters.seen.length = 0;
    await p.readResource("mgmt_ssh_key", states[2]!);
    expect(proxy.counters.seen).toEqual(["GET /profile/sshkeys", "GET /profile/sshkeys"]);
  });
});
