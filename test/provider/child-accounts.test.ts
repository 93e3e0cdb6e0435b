/** @tier unit */
/**
 * Acting in a child account, against a real in-process server: the ephemeral proxy token
 * (open, use, close revokes) and the provider's child-account mode (renewal before expiry on
 * the provider's clock, a fresh token when the server's clock ran past the expiry, revocation
 * when the provider ends, a clear error when the parent token lacks the scope).
 */
import { ApiError, MgmtClient } from "../../src/client";
import { Scopes } from "../../src/contract/scopes";
import { createProvider } from "../../src/provider";
import type { ProviderServer } from "../../src/provider/framework/server";
import type { ObjectValue } from "../../src/provider/framework/value";
import { ManualClock, silentLogger, startServer, type RunningServer } from "../../src/server";

const EUUID = "A1B2C3D4-0000-4000-8000-00000000C41D";
const MINUTE = 60_000;

let server: RunningServer;
let serverClock: ManualClock;
let proxyUserId: number;
/** Sees the proxy user's tokens: minted by the operator, so it is not one the provider makes. */
let observer: MgmtClient;
let observerTokenId: number;

beforeAll(async () => {
  serverClock = new ManualClock(new Date().toISOString());
  server = await startServer({ logger: silentLogger, clock: serverClock });
  const { proxyUser } = await server.domain.childAccounts.seedChild({ euuid: EUUID });
  proxyUserId = proxyUser.id;
  const minted = await server.domain.tokens.mint({ userId: proxyUserId, label: "observer", scopes: Scopes.ALL, expiry: null });
  observerTokenId = minted.record.id;
  observer = new MgmtClient({ url: server.url, token: minted.token });
});

afterAll(async () => {
  await observer.close();
  await server.close();
});

/** Proxy tokens alive on the server, besides the observer's own. */
async function liveProxyTokens(): Promise<number[]> {
  const ids: number[] = [];
  for await (const t of observer.listTokens()) if (t.id !== observerTokenId) ids.push(t.id);
  return ids;
}

async function acceptedAs(token: string): Promise<string | number> {
  const client = new MgmtClient({ url: server.url, token, maxRetries: 0 });
  try {
    return (await client.getProfile()).username;
  } catch (err) {
    if (err instanceof ApiError) return err.status;
    throw err;
  } finally {
    await client.close();
  }
}

const profileOf = async (provider: ProviderServer): Promise<ObjectValue> => {
  const attributes = Object.keys(provider.schemas().dataSources.mgmt_profile!.block.attributes ?? {});
  const read = await provider.readDataSource("mgmt_profile", Object.fromEntries(attributes.map((n) => [n, null])));
  expect(read.diagnostics).toEqual([]);
  return read.state!;
};

describe("ephemeral mgmt_child_account_token", () => {
  let provider: ProviderServer;
  beforeAll(async () => {
    provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: server.token! } });
    expect((await provider.configure({})).diagnostics).toEqual([]);
  });
  afterAll(() => provider.close());

  const config = (euuid: string | null): ObjectValue => ({ euuid, token: null, expiry: null, scopes: null });

  test("open gives a proxy token that acts as the proxy user; close revokes it", async () => {
    const opened = await provider.openEphemeralResource("mgmt_child_account_token", config(EUUID));
    expect(opened.diagnostics).toEqual([]);
    const token = opened.result!.token as string;
    expect(opened.result).toMatchObject({ euuid: EUUID, scopes: "*", expiry: expect.stringMatching(/Z$/) });
    expect(await acceptedAs(token)).toMatch(/_[0-9a-f]{16}$/);

    // Renewal asked for before the expiry, and the private data holds no secret.
    expect(opened.renewAt!.getTime()).toBeLessThan(Date.parse(opened.result!.expiry as string));
    expect(Buffer.from(opened.private!).toString()).not.toContain(token);

    const renewed = await provider.renewEphemeralResource("mgmt_child_account_token", opened.private);
    expect(renewed.diagnostics.map((d) => [d.severity, d.summary])).toEqual([
      ["warning", expect.stringContaining(`The proxy token of child account ${EUUID} runs out at`)],
    ]);

    expect((await provider.closeEphemeralResource("mgmt_child_account_token", opened.private)).diagnostics).toEqual([]);
    expect(await acceptedAs(token)).toBe(401);
    expect(await liveProxyTokens()).toEqual([]);
  });

  test("validation names the euuid; an unknown child account is an error, not a token", async () => {
    const invalid = await provider.validateEphemeralResourceConfig("mgmt_child_account_token", config("a b"));
    expect(invalid.diagnostics).toMatchObject([{ severity: "error", attribute: [{ attribute: "euuid" }] }]);
    const missing = await provider.openEphemeralResource("mgmt_child_account_token", config("NO-SUCH-CHILD"));
    expect(missing.result).toBeNull();
    expect(missing.diagnostics).toMatchObject([{ severity: "error", summary: "Failed to open mgmt_child_account_token" }]);
  });

  test("close in a process that did not open the token warns instead of failing", async () => {
    const other = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: server.token! } });
    await other.configure({});
    const opened = await provider.openEphemeralResource("mgmt_child_account_token", config(EUUID));
    const closed = await other.closeEphemeralResource("mgmt_child_account_token", opened.private);
    expect(closed.diagnostics).toMatchObject([{ severity: "warning", summary: expect.stringContaining("was not revoked") }]);
    await provider.closeEphemeralResource("mgmt_child_account_token", opened.private);
    await other.close();
    expect(await liveProxyTokens()).toEqual([]);
  });
});

describe("provider child-account mode", () => {
  const providerConfig = (euuid: string): ObjectValue => ({ child_account: [{ euuid }] });

  test("acts as the proxy user, renews before expiry and after the server's clock ran past it, and revokes at the end", async () => {
    let now = new Date();
    const provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: server.token! }, now: () => now });
    const configure = await provider.configure({ ...providerConfig(EUUID) });
    expect(configure.diagnostics).toEqual([]);
    const first = await liveProxyTokens();
    expect(first).toHaveLength(1);
    expect((await profileOf(provider)).username).toMatch(/_[0-9a-f]{16}$/);

    // 13 minutes on the provider's clock: past four fifths of the 15-minute lifetime.
    now = new Date(now.getTime() + 13 * MINUTE);
    await profileOf(provider);
    const second = await liveProxyTokens();
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first[0]);

    // The server's clock runs 20 minutes ahead: the held token expired without the provider
    // seeing it coming; the 401 makes it mint a fresh one and repeat the read.
    serverClock.advance(20 * MINUTE);
    await profileOf(provider);
    const third = await liveProxyTokens();
    expect(third).toHaveLength(1);
    expect(third[0]).not.toBe(second[0]);

    await provider.close();
    expect(await liveProxyTokens()).toEqual([]);
  });

  test("revokes the last proxy token at the end even after the engine asked the provider to stop", async () => {
    const provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: server.token! } });
    expect((await provider.configure({ ...providerConfig(EUUID) })).diagnostics).toEqual([]);
    expect(await liveProxyTokens()).toHaveLength(1);
    // Ctrl-C: StopProvider, then the process ends; a revoke the stop cancelled would leave a live credential.
    await provider.stop();
    await provider.close();
    expect(await liveProxyTokens()).toEqual([]);
  });

  test("MGMT_CHILD_ACCOUNT_EUUID selects the child account when the block is absent", async () => {
    const provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: server.token!, MGMT_CHILD_ACCOUNT_EUUID: EUUID } });
    expect((await provider.configure({})).diagnostics).toEqual([]);
    expect((await profileOf(provider)).username).toMatch(/_[0-9a-f]{16}$/);
    await provider.close();
    expect(await liveProxyTokens()).toEqual([]);
  });

  test("a parent token without child_account:read_write fails at configure, saying what it needs", async () => {
    const narrow = await new MgmtClient({ url: server.url, token: server.token! }).createToken({ label: "narrow", scopes: "account:read_write" });
    const provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: narrow.token } });
    const configure = await provider.configure(providerConfig(EUUID));
    expect(configure.diagnostics).toMatchObject([
      { severity: "error", summary: `Cannot act in child account ${EUUID}`, attribute: [{ attribute: "child_account" }, { index: 0 }, { attribute: "euuid" }] },
    ]);
    expect(configure.diagnostics[0]!.detail).toContain("child_account:read_write");
    expect(await liveProxyTokens()).toEqual([]);
  });

  test("an unknown child account fails at configure naming the euuid", async () => {
    const provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: server.token! } });
    const configure = await provider.configure(providerConfig("NO-SUCH-CHILD"));
    expect(configure.diagnostics).toMatchObject([{ severity: "error", summary: "Cannot act in child account NO-SUCH-CHILD" }]);
    expect(configure.diagnostics[0]!.detail).toContain('no active child account with euuid "NO-SUCH-CHILD"');
  });
});
