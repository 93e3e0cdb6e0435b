/** @tier unit */
/** Single-object data sources against an in-process `mgmt serve` with its default fixtures, compared with the API field by field. */
import { emptyGrants } from "../../../src/contract/grants";
import type { ProviderServer } from "../../../src/provider/framework/server";
import type { ObjectValue } from "../../../src/provider/framework/value";
import { newActor } from "../../server/actors";
import { call, startTestServer, type TestServer } from "../../server/helpers";
import { apiList, differences, providerFor, read, readOk } from "./support";

let server: TestServer;
let provider: ProviderServer;

beforeAll(async () => {
  server = await startTestServer({ defaultFixtures: true });
  provider = await providerFor(server);
  await call(server, "POST", "/profile/tokens", { json: { label: "makes an event" } });
});
afterAll(() => server.close());

const api = async (path: string, token?: string) => {
  const r = await call(server, "GET", path, token === undefined ? {} : { token });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.body as Record<string, unknown>;
};

it("mgmt_event shows one event as the API does", async () => {
  const [event] = await apiList(server, "/account/events");
  const state = await readOk(provider, "mgmt_event", { id: event!.id as number });
  expect(differences(event, state)).toEqual([]);
  const missing = await read(provider, "mgmt_event", { id: 999_999 });
  expect(missing.diagnostics[0]!.detail).toMatch(/\[404\]/);
});

it("mgmt_invoice shows the invoice and every item", async () => {
  const [invoice] = await apiList(server, "/account/invoices");
  const state = await readOk(provider, "mgmt_invoice", { id: invoice!.id as number });
  const { items, ...rest } = state;
  expect(differences(invoice, rest)).toEqual([]);
  const apiItems = await apiList(server, `/account/invoices/${String(invoice!.id)}/items`);
  expect(apiItems.length).toBeGreaterThan(0);
  expect(differences(apiItems, items)).toEqual([]);
});

it("mgmt_availability shows one region; its id is the region", async () => {
  const { id, ...state } = await readOk(provider, "mgmt_availability", { region: "eu-west" });
  expect(differences(await api("/account/availability/eu-west"), state)).toEqual([]);
  expect(id).toBe("eu-west");
});

it("mgmt_account shows every field of the account", async () => {
  const account = await api("/account");
  const { id, ...state } = await readOk(provider, "mgmt_account");
  expect(differences(account, state)).toEqual([]);
  expect(id).toBe(account.euuid);
});

it("mgmt_child_account shows one child account by euuid", async () => {
  const [child] = await apiList(server, "/account/child-accounts");
  const { id, ...state } = await readOk(provider, "mgmt_child_account", { euuid: child!.euuid as string });
  expect(differences(child, state)).toEqual([]);
  expect(id).toBe(child!.euuid);
  for (const euuid of ["", "has space", "a/b"]) {
    expect((await read(provider, "mgmt_child_account", { euuid })).diagnostics).toEqual([
      expect.objectContaining({ severity: "error", attribute: [{ attribute: "euuid" }], detail: expect.stringMatching(/must be a child account euuid/) }),
    ]);
  }
});

describe("mgmt_ssh_key", () => {
  it("reads by id and by label alike", async () => {
    const [key] = await apiList(server, "/profile/sshkeys");
    const byId = await readOk(provider, "mgmt_ssh_key", { id: String(key!.id) });
    const byLabel = await readOk(provider, "mgmt_ssh_key", { label: key!.label as string });
    expect(differences(key, byId)).toEqual([]);
    expect(byLabel).toEqual(byId);
  });

  it("refuses a label that names no key or several, and a config that names neither", async () => {
    const [key] = await apiList(server, "/profile/sshkeys");
    await call(server, "POST", "/profile/sshkeys", { json: { label: "twin", ssh_key: key!.ssh_key } });
    await call(server, "POST", "/profile/sshkeys", { json: { label: "twin", ssh_key: key!.ssh_key } });
    expect((await read(provider, "mgmt_ssh_key", { label: "twin" })).diagnostics[0]!.detail).toMatch(/^2 SSH keys have the label "twin" \(ids \d+, \d+\)/);
    expect((await read(provider, "mgmt_ssh_key", { label: "nobody" })).diagnostics[0]!.detail).toBe('No SSH key has the label "nobody".');
    expect((await read(provider, "mgmt_ssh_key")).diagnostics[0]).toMatchObject({ summary: "Missing id or label" });
    expect((await read(provider, "mgmt_ssh_key", { id: "1", label: "x" })).diagnostics[0]).toMatchObject({ summary: "Conflicting attributes" });
  });
});

it("mgmt_tag groups the tagged objects by type, every field as the API shows it", async () => {
  const objects = (await apiList(server, "/tags/production")) as { type: string; data: Record<string, unknown> }[];
  const state = await readOk(provider, "mgmt_tag", { label: "production" });
  const byType = (t: string) => objects.filter((o) => o.type === t).map((o) => o.data);
  expect(differences(byType("compute"), state.computes)).toEqual([]);
  expect(differences(byType("domain"), state.domains)).toEqual([]);
  expect(differences(byType("volume"), state.volumes)).toEqual([]);
  expect(differences(byType("nodebalancer"), state.nodebalancers)).toEqual([]);
  expect(["compute", "domain", "volume", "nodebalancer"].every((t) => byType(t).length > 0)).toBe(true);
});

describe("mgmt_grants", () => {
  it("says an unrestricted user is unrestricted, with no grant lists", async () => {
    const state = await readOk(provider, "mgmt_grants");
    expect(state).toMatchObject({ id: "grants", restricted: false, global: null, compute: null });
  });

  it("shows a restricted user's grants as the API does", async () => {
    const { user, token } = await newActor(server, { restricted: true });
    const grants = {
      ...emptyGrants(),
      global: { ...emptyGrants().global, account_access: "read_only" as const, add_volumes: true },
      compute: [{ id: 1, label: "web-1", permissions: "read_write" as const }],
    };
    const set = await call(server, "PUT", `//__admin/users/${user.id}/grants`, { token: server.adminToken, json: grants });
    expect(set.status).toBe(200);
    const state = await readOk(await providerFor(server, token), "mgmt_grants");
    const { id, restricted, ...rest } = state;
    expect({ id, restricted }).toEqual({ id: "grants", restricted: true });
    expect(differences(await api("/profile/grants", token), rest as ObjectValue)).toEqual([]);
  });
});

it("mgmt_profile keeps its attributes and shows the profile as the API does", async () => {
  const profile = await api("/profile");
  const { id, ...state } = await readOk(provider, "mgmt_profile");
  expect(id).toBe(String(profile.uid));
  expect(differences(profile, state)).toEqual([]);
});
