/** @tier unit */
/** Creates under lost answers and server errors, through a fault proxy in front of a real mgmt serve: never a duplicate. */
import { MgmtClient } from "../../src/client";
import { outcomeUnknown } from "../../src/client/create-once";
import { createOAuthClientOnce } from "../../src/provider/resources/oauth-client/collection";
import { createSshKeyOnce } from "../../src/provider/resources/ssh-key/collection";
import { createTagOnce, sameTaggedObjects } from "../../src/provider/resources/tag/collection";
import { createTokenOnce } from "../../src/provider/resources/token/collection";
import { ApiError, NetworkError } from "../../src/client/errors";
import { ManualClock, silentLogger, startServer, type RunningServer } from "../../src/server";
import { FaultProxy, type Fault } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";

let server: RunningServer;
let clock: ManualClock;
let proxy: FaultProxy;
let client: MgmtClient;

beforeEach(async () => {
  clock = new ManualClock(new Date().toISOString());
  server = await startServer({ logger: silentLogger, clock });
  proxy = await FaultProxy.start(server.url);
  client = new MgmtClient({ url: proxy.url, token: server.token!, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
});
afterEach(async () => {
  await client.close();
  await proxy.close();
  await server.close();
});

/** The first `times` requests of `method` to `path` get `fault`. */
function faultFirst(method: string, path: string, fault: Fault, times = 1): void {
  let left = times;
  proxy.rule = (m, p) => (m === method && p === path && left-- > 0 ? fault : undefined);
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const i of items) out.push(i);
  return out;
}

describe("creates whose outcome is unknown", () => {
  it("sorts failures: lost connections, timeouts and 5xx may have happened; refusals did not", () => {
    const network = (kind: "network" | "timeout" | "connect" | "aborted") => new NetworkError({ kind, method: "POST", path: "/x", origin: "o", attempts: 1 });
    const api = (status: number) => new ApiError({ status, method: "POST", path: "/x", errors: [{ reason: "r" }], attempts: 1 });
    expect([network("network"), network("timeout"), api(500), api(503)].map(outcomeUnknown)).toEqual([true, true, true, true]);
    expect([network("connect"), network("aborted"), api(400), api(404), api(429)].map(outcomeUnknown)).toEqual([false, false, false, false, false]);
  });

  it("adopts the SSH key a dropped answer had created, instead of creating a second", async () => {
    faultFirst("POST", "/profile/sshkeys", { kind: "drop-after" });
    const key = sshKeyText("ed25519", "lost@answer");
    const made = await createSshKeyOnce(client, { label: "lost", ssh_key: key });
    expect(made.adopted).toBe(true);
    expect((await all(client.listSshKeys())).filter((k) => k.label === "lost").map((k) => k.id)).toEqual([made.value.id]);
    expect(proxy.counters.byMethod.POST).toBe(1);
  });

  it("retries a create that got 503 and finds nothing, once", async () => {
    faultFirst("POST", "/profile/sshkeys", { kind: "status", status: 503 }, 2);
    const made = await createSshKeyOnce(client, { label: "busy", ssh_key: sshKeyText("ed25519", "busy") });
    expect(made.adopted).toBe(false);
    expect((await all(client.listSshKeys())).filter((k) => k.label === "busy")).toHaveLength(1);
    expect(proxy.counters.byMethod.POST).toBe(3);
  });

  it("never adopts an identical key that existed before the request", async () => {
    const key = sshKeyText("ed25519", "old");
    clock.set(new Date(Date.now() - 3_600_000));
    const old = await client.createSshKey({ label: "same", ssh_key: key });
    clock.set(new Date());
    faultFirst("POST", "/profile/sshkeys", { kind: "drop-after" });
    const made = await createSshKeyOnce(client, { label: "same", ssh_key: key });
    expect(made.value.id).not.toBe(old.id);
    expect((await all(client.listSshKeys())).filter((k) => k.label === "same")).toHaveLength(2);
  });

  it("revokes a token whose value was lost with its answer and creates it again", async () => {
    faultFirst("POST", "/profile/tokens", { kind: "drop-after" });
    const token = await createTokenOnce(client, { label: "lost-token" });
    expect(token.token.length).toBeGreaterThan(16);
    const live = (await all(client.listTokens())).filter((t) => t.label === "lost-token");
    expect(live.map((t) => t.id)).toEqual([token.id]);
  });

  it("adopts an OAuth client found through the events feed", async () => {
    faultFirst("POST", "/account/oauth-clients", { kind: "drop-after" });
    const made = await createOAuthClientOnce(client, { label: "lost-client", redirect_uri: "https://example.com/cb" });
    expect(made.adopted).toBe(true);
    expect((await all(client.listOAuthClients())).filter((c) => c.label === "lost-client").map((c) => c.id)).toEqual([made.value.id]);
  });

  it("adopts a tag by its label", async () => {
    faultFirst("POST", "/tags", { kind: "drop-after" });
    const made = await createTagOnce(client, { label: "lost-tag" });
    expect(made).toEqual({ value: { label: "lost-tag" }, adopted: true });
  });

  it("does not retry a refusal", async () => {
    await expect(createSshKeyOnce(client, { label: "x".repeat(65), ssh_key: sshKeyText("ed25519", "x") })).rejects.toMatchObject({ status: 400 });
    expect(proxy.counters.byMethod.POST).toBe(1);
  });

  it("gives up after the retry budget when the create keeps failing and nothing appears", async () => {
    proxy.rule = (m) => (m === "POST" ? { kind: "status", status: 500 } : undefined);
    const strict = new MgmtClient({ url: proxy.url, token: server.token!, maxRetries: 2, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    await expect(createSshKeyOnce(strict, { label: "never", ssh_key: sshKeyText("ed25519", "never") })).rejects.toMatchObject({ status: 500 });
    await strict.close();
    expect(proxy.counters.byMethod.POST).toBe(3);
  });
});

describe("creates when the engine asks the provider to stop (Ctrl-C)", () => {
  let stop: AbortController;
  let stoppable: MgmtClient;
  beforeEach(() => {
    stop = new AbortController();
    stoppable = new MgmtClient({ url: proxy.url, token: server.token!, retry: { baseDelayMs: 1, maxDelayMs: 2 }, signal: stop.signal });
  });
  afterEach(() => stoppable.close());

  /** The first create of `path` meets `fault` (or none), the stop coming as the request reaches the proxy. */
  function stopDuringCreate(path: string, fault?: Fault): void {
    let left = 1;
    proxy.rule = (m, p) => {
      if (m !== "POST" || p !== path || left-- <= 0) return undefined;
      stop.abort(new Error("the engine asked the provider to stop"));
      return fault;
    };
  }

  it("finishes a create in flight: its answer is the result, nothing is left behind", async () => {
    stopDuringCreate("/profile/sshkeys");
    const made = await createSshKeyOnce(stoppable, { label: "in-flight", ssh_key: sshKeyText("ed25519", "in@flight") });
    expect(made.adopted).toBe(false);
    expect((await all(client.listSshKeys())).filter((k) => k.label === "in-flight").map((k) => k.id)).toEqual([made.value.id]);
  });

  it("still searches when the answer is lost after the stop, and adopts what the create made", async () => {
    stopDuringCreate("/profile/sshkeys", { kind: "drop-after" });
    const made = await createSshKeyOnce(stoppable, { label: "stopped-lost", ssh_key: sshKeyText("ed25519", "stopped@lost") });
    expect(made.adopted).toBe(true);
    expect((await all(client.listSshKeys())).filter((k) => k.label === "stopped-lost").map((k) => k.id)).toEqual([made.value.id]);
    expect(proxy.counters.byMethod.POST).toBe(1);
  });

  it("revokes a token whose value was lost after the stop, and does not create it again", async () => {
    stopDuringCreate("/profile/tokens", { kind: "drop-after" });
    await expect(createTokenOnce(stoppable, { label: "stopped-token" })).rejects.toBeInstanceOf(NetworkError);
    expect((await all(client.listTokens())).filter((t) => t.label === "stopped-token")).toEqual([]);
    expect(proxy.counters.byMethod.POST).toBe(1);
  });

  it("does not send again a create that made nothing (503, nothing found)", async () => {
    stopDuringCreate("/profile/sshkeys", { kind: "status", status: 503 });
    const err = await createSshKeyOnce(stoppable, { label: "stopped-busy", ssh_key: sshKeyText("ed25519", "stopped@busy") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((await all(client.listSshKeys())).filter((k) => k.label === "stopped-busy")).toEqual([]);
    expect(proxy.counters.byMethod.POST).toBe(1);
  });

  it("adopts an OAuth client a lost answer made after the stop, found through the events feed", async () => {
    stopDuringCreate("/account/oauth-clients", { kind: "drop-after" });
    const made = await createOAuthClientOnce(stoppable, { label: "stopped-app", redirect_uri: "https://example.com/cb" });
    expect(made.adopted).toBe(true);
    expect((await all(client.listOAuthClients())).filter((c) => c.label === "stopped-app").map((c) => c.id)).toEqual([made.value.id]);
  });
});

describe("sameTaggedObjects", () => {
  const compute = (id: number) => ({ type: "compute", data: { id } }) as never;
  const volume = (id: number) => ({ type: "volume", data: { id } }) as never;
  test("the same objects per type, in any order and with repeats in the body, match; anything else does not", () => {
    expect(sameTaggedObjects([compute(1), compute(2)], { label: "t", computes: [2, 1, 2] })).toBe(true);
    expect(sameTaggedObjects([], { label: "t" })).toBe(true);
    expect(sameTaggedObjects([compute(1)], { label: "t", computes: [1], volumes: [] })).toBe(true);
    expect(sameTaggedObjects([compute(1)], { label: "t", computes: [1, 2] })).toBe(false);
    expect(sameTaggedObjects([compute(1), volume(1)], { label: "t", computes: [1] })).toBe(false);
    expect(sameTaggedObjects([volume(1)], { label: "t", computes: [1] })).toBe(false);
  });
});
