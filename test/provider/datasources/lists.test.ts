/** @tier unit */
/** List data sources against an in-process `mgmt serve` with its default fixtures: contents, filters, X-Filter, paging, scopes. */
import type { ProviderServer } from "../../../src/provider/framework/server";
import type { ObjectValue } from "../../../src/provider/framework/value";
import { mintFor } from "../../server/actors";
import { call, startTestServer, type TestServer } from "../../server/helpers";
import { apiList, differences, filter, providerFor, read, readOk, watchRequests } from "./support";

let server: TestServer;
let provider: ProviderServer;

beforeAll(async () => {
  server = await startTestServer({ defaultFixtures: true });
  provider = await providerFor(server);
  // Events, tokens and an OAuth client made through the API, so every list has rows.
  const key = (await call(server, "GET", "/profile/sshkeys")).body as { data: { id: number }[] };
  await call(server, "PUT", `/profile/sshkeys/${key.data[0]!.id}`, { json: { label: "renamed runner" } });
  await call(server, "POST", "/profile/tokens", { json: { label: "ci deploy", scopes: "account:read_only" } });
  await call(server, "POST", "/account/oauth-clients", { json: { label: "Status Mirror", redirect_uri: "https://mirror.example.com/cb" } });
});
afterAll(() => server.close());

const items = (state: ObjectValue, name: string) => state[name] as ObjectValue[];

describe.each([
  ["mgmt_events", "/account/events", "events", []],
  ["mgmt_invoices", "/account/invoices", "invoices", []],
  ["mgmt_availabilities", "/account/availability", "availabilities", []],
  ["mgmt_child_accounts", "/account/child-accounts", "child_accounts", []],
  ["mgmt_account_logins", "/account/logins", "logins", []],
  ["mgmt_profile_logins", "/profile/logins", "logins", []],
  ["mgmt_maintenance", "/account/maintenance", "maintenance", []],
  ["mgmt_notifications", "/account/notifications", "notifications", []],
  ["mgmt_payment_methods", "/account/payment-methods", "payment_methods", []],
  ["mgmt_ssh_keys", "/profile/sshkeys", "ssh_keys", []],
  ["mgmt_tokens", "/profile/tokens", "tokens", ["token"]],
  ["mgmt_oauth_clients", "/account/oauth-clients", "oauth_clients", ["secret"]],
  ["mgmt_tags", "/tags", "tags", []],
  ["mgmt_trusted_devices", "/profile/devices", "trusted_devices", []],
  ["mgmt_authorized_apps", "/profile/apps", "authorized_apps", []],
] as const)("%s", (typeName, path, itemsName, omit) => {
  it("shows every field of every item the API lists, in the API's order", async () => {
    const state = await readOk(provider, typeName);
    const api = await apiList(server, path);
    expect(api.length).toBeGreaterThan(0);
    expect(differences(api, items(state, itemsName), omit)).toEqual([]);
    expect(state.id).toMatch(/^[0-9a-f]{32}$/);
  });
});

it("never puts a token value or a client secret in state", async () => {
  const tokens = await apiList(server, "/profile/tokens");
  const tokenState = JSON.stringify(await readOk(provider, "mgmt_tokens"));
  for (const t of tokens) expect(tokenState).not.toContain(t.token as string);
  expect(tokenState).not.toContain(server.token!.slice(0, 16));
  const clients = JSON.stringify(await readOk(provider, "mgmt_oauth_clients"));
  expect(clients).not.toMatch(/secret|REDACTED/i);
});

it("reads each invoice's items only when include_items is true", async () => {
  const without = items(await readOk(provider, "mgmt_invoices"), "invoices");
  expect(without.every((i) => i.items === null)).toBe(true);
  const withItems = items(await readOk(provider, "mgmt_invoices", { include_items: true }), "invoices");
  for (const invoice of withItems) {
    expect(differences(await apiList(server, `/account/invoices/${String(invoice.id)}/items`), invoice.items!)).toEqual([]);
  }
  expect(withItems.some((i) => (i.items as ObjectValue[]).length > 0)).toBe(true);
});

describe("filters", () => {
  it("send API-filterable ones as X-Filter and return what filtering locally returns", async () => {
    const watch = watchRequests(server);
    try {
      const sent = items(await readOk(provider, "mgmt_oauth_clients", { filter: [filter("label", ["Status Mirror", "Nightly Backup"])] }), "oauth_clients");
      expect(watch.seen.filter((r) => r.url.startsWith("/v4/account/oauth-clients")).map((r) => r.filter)).toEqual([
        JSON.stringify({ "+and": [{ "+or": [{ label: "Status Mirror" }, { label: "Nightly Backup" }] }] }),
      ]);
      watch.seen.length = 0;
      const local = items(
        await readOk(provider, "mgmt_oauth_clients", { filter: [filter("label", ["^(Status Mirror|Nightly Backup)$"], "regex")] }),
        "oauth_clients",
      );
      expect(watch.seen.map((r) => r.filter)).toEqual([undefined]);
      expect(sent.map((c) => c.label).sort()).toEqual(["Nightly Backup", "Status Mirror"]);
      expect(sent).toEqual(local);
    } finally {
      watch.stop();
    }
  });

  it("keep the case-sensitive meaning of substring although the API's +contains ignores case", async () => {
    const watch = watchRequests(server);
    try {
      const r = items(await readOk(provider, "mgmt_oauth_clients", { filter: [filter("label", ["status"], "substring")] }), "oauth_clients");
      expect(watch.seen[0]!.filter).toBe(JSON.stringify({ "+and": [{ label: { "+contains": "status" } }] }));
      expect(r).toEqual([]);
      const upper = items(await readOk(provider, "mgmt_oauth_clients", { filter: [filter("label", ["Status"], "substring")] }), "oauth_clients");
      expect(upper.map((c) => c.label).sort()).toEqual(["Status Dashboard", "Status Mirror"]);
    } finally {
      watch.stop();
    }
  });

  it("apply the others after paging, ANDed with the sent ones, then order and limit", async () => {
    const all = items(await readOk(provider, "mgmt_child_accounts"), "child_accounts");
    const r = await readOk(provider, "mgmt_child_accounts", {
      filter: [filter("country", ["US"]), filter("capabilities", ["Computes"])],
      order_by: "company",
      order: "desc",
      limit: 1,
    });
    const expected = all
      .filter((c) => c.country === "US" && (c.capabilities as string[]).includes("Computes"))
      .sort((a, b) => String(b.company).localeCompare(String(a.company)));
    expect(items(r, "child_accounts")).toEqual(expected.slice(0, 1));
    expect(expected.length).toBeGreaterThan(0);
  });

  it("on an unknown field, or with a regex that does not compile, fail at plan naming the filter", async () => {
    const base = Object.fromEntries(Object.keys(provider.schemas().dataSources.mgmt_tags!.block.attributes!).map((n) => [n, null]));
    const unknown = await provider.validateDataResourceConfig("mgmt_tags", { ...base, filter: [filter("label", ["x"]), filter("colour", ["red"])] });
    expect(unknown.diagnostics).toEqual([
      expect.objectContaining({ severity: "error", summary: "Invalid filter 2", detail: expect.stringContaining('name = "colour"') }),
    ]);
    const regex = await provider.validateDataResourceConfig("mgmt_tags", { ...base, filter: [filter("label", ["[a-"], "regex")] });
    expect(regex.diagnostics[0]!.detail).toMatch(/filter 1 \(name = "label"\): the regular expression "\[a-" does not compile/);
    const matchBy = await provider.validateDataResourceConfig("mgmt_tags", { ...base, filter: [filter("label", ["x"], "glob")] });
    expect(matchBy.diagnostics[0]!.detail).toMatch(/filter.match_by: must be one of "exact", "substring", "regex"; got "glob"/);
  });
});

describe("mgmt_events beyond one page", () => {
  const TOTAL = 1_200;
  let accountId: number;
  let apiEvents: Record<string, unknown>[];

  beforeAll(async () => {
    accountId = (await server.domain.auth.authenticate(server.token!)).user.account_id;
    const actions = ["tag_create", "compute_boot", "volume_create"] as const;
    for (let i = 0; i < TOTAL; i++) {
      server.clock.advance(60_000);
      await server.domain.events.record({
        actor: null,
        accountId,
        action: actions[i % 3]!,
        entity: { id: 1000 + (i % 7), label: `object-${i % 7}`, type: i % 2 === 0 ? "compute" : "volume", url: `/v4/objects/${1000 + (i % 7)}` },
      });
    }
    apiEvents = await apiList(server, "/account/events");
  });

  const ids = (s: ObjectValue) => items(s, "events").map((e) => e.id);
  const pagesRequested = (seen: { url: string }[]) => seen.filter((r) => r.url.startsWith("/v4/account/events?")).length;

  it("reads every page of 500, newest first, each event as the API shows it", async () => {
    const watch = watchRequests(server);
    const state = await readOk(provider, "mgmt_events");
    watch.stop();
    expect(apiEvents.length).toBeGreaterThan(TOTAL);
    expect(differences(apiEvents, items(state, "events"))).toEqual([]);
    expect(ids(state)).toEqual([...ids(state)].sort((a, b) => Number(b) - Number(a)));
    expect(watch.seen.filter((r) => r.url.startsWith("/v4/account/events?")).map((r) => new URL(r.url, "http://x").searchParams.get("page_size"))).toEqual(
      Array(Math.ceil(apiEvents.length / 500)).fill("500"),
    );
  });

  it("filters on the server with fewer requests, and agrees with the same filter applied locally", async () => {
    const watch = watchRequests(server);
    const onServer = await readOk(provider, "mgmt_events", { filter: [filter("action", ["tag_create"]), filter("entity.type", ["volume"])] });
    const serverPages = pagesRequested(watch.seen);
    watch.seen.length = 0;
    const local = await readOk(provider, "mgmt_events", {
      filter: [filter("action", ["^tag_create$"], "regex"), filter("entity.type", ["^volume$"], "regex")],
    });
    const localPages = pagesRequested(watch.seen);
    watch.stop();
    expect(ids(onServer)).toEqual(ids(local));
    expect(ids(onServer)).toEqual(
      apiEvents.filter((e) => e.action === "tag_create" && (e.entity as { type: string } | null)?.type === "volume").map((e) => e.id),
    );
    expect(ids(onServer).length).toBe(TOTAL / 6);
    expect({ serverPages, localPages }).toEqual({ serverPages: 1, localPages: Math.ceil(apiEvents.length / 500) });
  });

  it("sends created_after/created_before as +gte/+lte on created", async () => {
    const sorted = apiEvents.map((e) => e.created as string).sort();
    const after = `${sorted[100]}Z`;
    const before = `${sorted[300]}Z`;
    const watch = watchRequests(server);
    const state = await readOk(provider, "mgmt_events", { created_after: after, created_before: before });
    watch.stop();
    expect(JSON.parse(watch.seen[0]!.filter!)).toEqual({ "+and": [{ created: { "+gte": sorted[100] } }, { created: { "+lte": sorted[300] } }] });
    expect(ids(state)).toEqual(apiEvents.filter((e) => (e.created as string) >= sorted[100]! && (e.created as string) <= sorted[300]!).map((e) => e.id));
  });

  it("stops paging once the limit is met in the API's order", async () => {
    const watch = watchRequests(server);
    const newest = await readOk(provider, "mgmt_events", { limit: 3 });
    const oldest = await readOk(provider, "mgmt_events", { order_by: "id", order: "asc", limit: 2 });
    watch.stop();
    expect(ids(newest)).toEqual(apiEvents.slice(0, 3).map((e) => e.id));
    expect(ids(oldest)).toEqual(
      apiEvents
        .slice(-2)
        .reverse()
        .map((e) => e.id),
    );
    expect(pagesRequested(watch.seen)).toBe(2);
    expect(JSON.parse(watch.seen[1]!.filter!)).toEqual({ "+order_by": "id", "+order": "asc" });
  });

  it("keeps the same id for the same arguments, another for others", async () => {
    const a = await readOk(provider, "mgmt_events", { limit: 1 });
    const b = await readOk(provider, "mgmt_events", { limit: 1 });
    const c = await readOk(provider, "mgmt_events", { limit: 2 });
    expect(a.id).toBe(b.id);
    expect(c.id).not.toBe(a.id);
  });
});

describe("a token without the list's scope", () => {
  it("gets an error naming the scope to add", async () => {
    const uid = (await server.domain.auth.authenticate(server.token!)).user.id;
    const accountOnly = await providerFor(server, await mintFor(server, uid, "account:read_only"));
    const events = await read(accountOnly, "mgmt_events");
    expect(events.state).toBeNull();
    expect(events.diagnostics).toEqual([
      expect.objectContaining({
        severity: "error",
        summary: "Failed to read data mgmt_events",
        detail: expect.stringContaining('accepts OAuth scope "events:read_only"'),
      }),
    ]);
    const eventsOnly = await providerFor(server, await mintFor(server, uid, "events:read_only"));
    const keys = await read(eventsOnly, "mgmt_ssh_keys");
    expect(keys.diagnostics[0]!.detail).toContain('accepts OAuth scope "account:read_only"');
    const children = await read(accountOnly, "mgmt_child_accounts");
    expect(children.diagnostics[0]!.detail).toContain('accepts OAuth scope "child_account:read_only"');
    // Maintenance takes any valid token.
    expect((await read(eventsOnly, "mgmt_maintenance")).diagnostics).toEqual([]);
  });
});
