/** @tier unit */
/**
 * The official JS SDK (`@linode/api-v4`, unmodified) against a real server: its requests are
 * sent as it builds them (axios, its headers, its bodies), only redirected from upstream's
 * address to this server's. Minting a child account's token is the call that once failed: the
 * SDK sends the euuid form-encoded on an operation that takes no body.
 */
import {
  baseRequest,
  createChildAccountPersonalAccessToken,
  createSSHKey,
  deleteSSHKey,
  getChildAccounts,
  getEvents,
  getProfile,
  getSSHKeys,
  setToken,
} from "@linode/api-v4";
import { Event, PersonalAccessToken } from "../../src/contract";
import { call, startTestServer, type TestServer } from "./helpers";
import { ed25519Key } from "./sshkey-gen";

const UPSTREAM = "https://api.linode.com";
const EUUID = "A1B2C3D4-0000-4000-A000-0000000005DC";

let server: TestServer;
/** Every request the SDK sent: method, URL and content type, as axios put them on the wire. */
const sent: Array<{ method: string; url: string; contentType: string | undefined; data: unknown }> = [];

beforeAll(async () => {
  server = await startTestServer();
  setToken(server.token!);
  const origin = server.url.replace(/\/v4$/, "");
  baseRequest.interceptors.request.use((config) => {
    const url = (config.url ?? "").replace(UPSTREAM, origin);
    return { ...config, url, proxy: false };
  });
  baseRequest.interceptors.response.use((res) => {
    sent.push({ method: res.config.method!.toUpperCase(), url: res.config.url!, contentType: res.request?.getHeader?.("content-type"), data: res.config.data });
    return res;
  });
});
afterAll(() => server.close());

test("createChildAccountPersonalAccessToken mints a proxy token that works in the child account", async () => {
  await server.domain.childAccounts.seedChild({ euuid: EUUID });
  const token = PersonalAccessToken.parse(await createChildAccountPersonalAccessToken({ euuid: EUUID }));
  expect(token).toMatchObject({ scopes: "*", token: expect.stringMatching(/^[0-9a-f]{64}$/) });
  // What made it worth a test: the SDK sends the euuid as a form body on a bodiless POST.
  const mint = sent.find((r) => r.url.endsWith(`/child-accounts/${EUUID}/token`))!;
  expect(mint).toMatchObject({ method: "POST", data: EUUID });
  expect(mint.contentType).toMatch(/^application\/x-www-form-urlencoded/);
  const proxy = await call(server, "GET", "/profile", { token: token.token });
  expect(proxy.status).toBe(200);
  expect(proxy.body).toMatchObject({ email: expect.stringMatching(/^proxy\+/) });
});

test("profile, SSH keys, child accounts and events through the SDK", async () => {
  expect(await getProfile()).toMatchObject({ username: "admin" });
  const key = await createSSHKey({ label: "from the sdk", ssh_key: ed25519Key() });
  expect(key).toMatchObject({ label: "from the sdk" });
  const keys = await getSSHKeys({ page_size: 25 });
  expect(keys.data.map((k) => k.id)).toContain(key.id);
  const children = await getChildAccounts({ filter: { company: "" } });
  expect(children.data.map((c) => c.euuid)).toContain(EUUID);
  // getEvents calls /v4beta, with an X-Filter the server reads.
  const events = await getEvents({}, { action: "user_ssh_key_add" });
  expect(events.data.map((e) => Event.parse(e).entity?.id)).toContain(key.id);
  expect(await deleteSSHKey(key.id)).toEqual({});
  expect(sent.some((r) => r.url.includes("/v4beta/account/events"))).toBe(true);
});
