/** @tier unit */
/**
 * StopProvider (the engine's Ctrl-C) while an apply is writing: the write the provider already
 * sent is finished and its object answered to the engine, which records it in state; what was
 * not sent yet is cancelled. The provider against a real in-process server, through a fault proxy
 * that sees each request arrive.
 */
import { MgmtClient } from "../../src/client";
import { createProvider } from "../../src/provider";
import type { ProviderServer } from "../../src/provider/framework/server";
import type { ObjectValue } from "../../src/provider/framework/value";
import { silentLogger, startServer, type RunningServer } from "../../src/server";
import { FaultProxy } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";

let server: RunningServer;
let proxy: FaultProxy;
let provider: ProviderServer;
let client: MgmtClient;

beforeEach(async () => {
  server = await startServer({ logger: silentLogger });
  proxy = await FaultProxy.start(server.url);
  provider = createProvider({ env: { MGMT_URL: proxy.url, MGMT_TOKEN: server.token! } });
  expect((await provider.configure({})).diagnostics).toEqual([]);
  client = new MgmtClient({ url: server.url, token: server.token! });
});
afterEach(async () => {
  await provider.close();
  await client.close();
  await proxy.close();
  await server.close();
});

const keyConfig = (label: string, sshKey: string): ObjectValue => ({ id: null, label, ssh_key: sshKey, created: null });

async function applyKey(label: string): Promise<Awaited<ReturnType<ProviderServer["applyResourceChange"]>>> {
  const config = keyConfig(label, sshKeyText("ed25519", `${label}@stop`));
  const plan = await provider.planResourceChange("mgmt_ssh_key", { priorState: null, proposedNewState: config, config });
  return provider.applyResourceChange("mgmt_ssh_key", { priorState: null, plannedState: plan.plannedState, config });
}

async function keyIds(label: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const k of client.listSshKeys()) if (k.label === label) ids.push(String(k.id));
  return ids;
}

describe("StopProvider during an apply", () => {
  it("answers the object a create already sent made, so the engine records it", async () => {
    proxy.rule = (method, path) => {
      if (method !== "POST" || path !== "/profile/sshkeys") return undefined;
      void provider.stop();
      return { kind: "delay", ms: 50 };
    };
    const applied = await applyKey("sent-before-stop");
    expect(applied.diagnostics).toEqual([]);
    expect(await keyIds("sent-before-stop")).toEqual([applied.newState!.id]);
  });

  it("answers the object when the create's answer is lost after the stop: found by the create-once search", async () => {
    proxy.rule = (method, path) => {
      if (method !== "POST" || path !== "/profile/sshkeys") return undefined;
      void provider.stop();
      return { kind: "drop-after" };
    };
    const applied = await applyKey("lost-after-stop");
    expect(applied.diagnostics.map((d) => d.severity)).toEqual(["warning"]);
    expect(await keyIds("lost-after-stop")).toEqual([applied.newState!.id]);
  });

  it("sends nothing for a create that starts after the stop", async () => {
    await provider.stop();
    const applied = await applyKey("after-stop");
    expect(applied.diagnostics).toEqual([expect.objectContaining({ severity: "error", detail: expect.stringContaining("cancelled") })]);
    expect(applied.newState).toBeNull();
    expect(proxy.counters.byMethod.POST ?? 0).toBe(0);
    expect(await keyIds("after-stop")).toEqual([]);
  });
});
