/** @tier unit */
/** `X-Filter` on the lists upstream marks filterable, and page bounds on every list route. */
import { parseFilter, applyFilter } from "../../src/server/domain/filter";
import { oauthApp, bootstrapUserId, at } from "./actors";
import { call, startTestServer, type TestServer } from "./helpers";
import { ed25519Key } from "./sshkey-gen";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  // Tokens "alpha", "beta", "gamma" a day apart; the bootstrap token exists too.
  for (const label of ["alpha", "beta", "gamma"]) {
    server.clock.advance(86_400_000);
    expect((await call(server, "POST", "/profile/tokens", { json: { label } })).status).toBe(200);
  }
  const userId = await bootstrapUserId(server);
  await oauthApp(server, userId, "account:read_only", at(server, 10 * 86_400_000));
  await oauthApp(server, userId, "account:read_only", null);
});
afterAll(() => server.close());

type Page = { data: Array<Record<string, unknown>>; results: number; pages: number; page: number };
const list = async (path: string, filter: unknown, query = "") => {
  const res = await call(server, "GET", path + query, { headers: { "x-filter": typeof filter === "string" ? filter : JSON.stringify(filter) } });
  return { ...res, page: res.body as Page };
};
const labels = (p: Page) => p.data.map((t) => t.label);

describe("operators on /profile/tokens", () => {
  test("equality on a field", async () => {
    const { status, page } = await list("/profile/tokens", { label: "beta" });
    expect(status).toBe(200);
    expect(labels(page)).toEqual(["beta"]);
    expect(page.results).toBe(1);
    expect(page.pages).toBe(1);
  });
  test("+eq and +neq", async () => {
    expect(labels((await list("/profile/tokens", { label: { "+eq": "gamma" } })).page)).toEqual(["gamma"]);
    const neq = (await list("/profile/tokens", { label: { "+neq": "gamma" } })).page;
    expect(labels(neq)).not.toContain("gamma");
    expect(neq.results).toBe(3);
  });
  test("+contains (case-insensitive)", async () => {
    expect(labels((await list("/profile/tokens", { label: { "+contains": "MM" } })).page)).toEqual(["gamma"]);
  });
  test("+gt, +gte, +lt, +lte on a timestamp", async () => {
    const all = (await list("/profile/tokens", {})).page.data;
    const created = Object.fromEntries(all.map((t) => [t.label, t.created as string]));
    expect(labels((await list("/profile/tokens", { created: { "+gt": created.beta } })).page)).toEqual(["gamma"]);
    expect(labels((await list("/profile/tokens", { created: { "+gte": created.beta } })).page)).toEqual(["beta", "gamma"]);
    expect(labels((await list("/profile/tokens", { created: { "+lt": created.beta } })).page)).toHaveLength(2);
    expect(labels((await list("/profile/tokens", { created: { "+lte": created.alpha, "+gte": created.alpha } })).page)).toEqual(["alpha"]);
  });
  test("+and and +or", async () => {
    expect(labels((await list("/profile/tokens", { "+or": [{ label: "alpha" }, { label: "gamma" }] })).page)).toEqual(["alpha", "gamma"]);
    expect(labels((await list("/profile/tokens", { "+and": [{ label: { "+contains": "a" } }, { label: { "+neq": "alpha" } }] })).page)).toEqual([
      "beta",
      "gamma",
    ]);
    // Several keys are ANDed.
    expect(labels((await list("/profile/tokens", { "+or": [{ label: "alpha" }, { label: "beta" }], label: { "+neq": "alpha" } })).page)).toEqual(["beta"]);
  });
  test("+order_by and +order", async () => {
    const desc = (await list("/profile/tokens", { label: { "+contains": "a" }, "+order_by": "label", "+order": "desc" })).page;
    expect(labels(desc)).toEqual(["gamma", "beta", "alpha"]);
    const asc = (await list("/profile/tokens", { label: { "+contains": "a" }, "+order_by": "created" })).page;
    expect(labels(asc)).toEqual(["alpha", "beta", "gamma"]);
  });
  test("filtered results are paged with the filtered count; a page past their end answers the last, as upstream does", async () => {
    const { page } = await list("/profile/tokens", { "+order_by": "label", "+order": "asc" }, "?page=2&page_size=25");
    expect(page).toMatchObject({ page: 1, pages: 1, results: 4 });
    expect(labels(page).slice(0, 3)).toEqual(["alpha", "beta", "gamma"]);
  });
  test("an empty filter lists everything", async () => {
    expect((await list("/profile/tokens", {})).page.results).toBe(4);
  });
});

describe("/profile/apps: label, created, expiry", () => {
  test("null expiry and comparison on expiry", async () => {
    expect((await list("/profile/apps", { expiry: null })).page.results).toBe(1);
    expect((await list("/profile/apps", { expiry: { "+gt": "2000-01-01T00:00:00" } })).page.results).toBe(1);
    const ordered = (await list("/profile/apps", { "+order_by": "expiry", "+order": "asc" })).page.data.map((a) => a.expiry);
    expect(ordered[0]).not.toBeNull();
    expect(ordered[1]).toBeNull();
    expect((await list("/profile/apps", { label: { "+contains": "app" } })).page.results).toBe(2);
  });
});

describe("/account/events: entity.id as the server writes it", () => {
  const ids = (p: Page) => p.data.map((e) => (e.entity as { id: unknown; type: string }).id);
  test("a string id (a tag's label) and a number id (an SSH key's) each find their events", async () => {
    expect((await call(server, "POST", "/tags", { json: { label: "production" } })).status).toBe(200);
    const key = await call(server, "POST", "/profile/sshkeys", { json: { label: "k", ssh_key: ed25519Key() } });
    const keyId = (key.body as { id: number }).id;
    const byTag = await list("/account/events", { "entity.id": "production" });
    expect(byTag.status).toBe(200);
    expect(byTag.page.data.map((e) => e.action)).toEqual(["tag_create"]);
    expect(ids(byTag.page)).toEqual(["production"]);
    const byKey = await list("/account/events", { "entity.id": keyId, "entity.type": "user_ssh_key" });
    expect(ids(byKey.page)).toEqual([keyId]);
    // Taken as written: the number's text is not the number.
    expect((await list("/account/events", { "entity.id": String(keyId), "entity.type": "user_ssh_key" })).page.results).toBe(0);
    const either = await list("/account/events", { "+or": [{ "entity.id": "production" }, { "entity.id": { "+eq": keyId } }] });
    expect(new Set(ids(either.page))).toEqual(new Set(["production", keyId]));
  });
  test("ordering compares numbers; a boolean or a string ordered is refused", async () => {
    expect((await list("/account/events", { "entity.id": { "+gte": 1 } })).status).toBe(200);
    for (const bad of [{ "entity.id": true }, { "entity.id": { "+gt": "a" } }, { "entity.id": { "+contains": "a" } }]) {
      expect((await list("/account/events", bad)).status).toBe(400);
    }
  });
});

describe("+or and +and with operators inside a field's value", () => {
  beforeAll(async () => {
    for (const [type, when] of [
      ["reboot", "2030-01-01T00:00:00"],
      ["migrate", "2030-03-01T00:00:00"],
      ["reboot", "2030-09-01T00:00:00"],
    ] as const) {
      const entity = { id: 1, label: "a", type: "compute", url: "/v4/compute/instances/1" };
      await server.domain.notices.seedMaintenance(await accountId(), { entity, reason: "r", status: "pending", type, when });
    }
  });
  const accountId = async () => (await server.domain.auth.authenticate(server.token!)).user.account_id;
  const whens = (p: Page) => p.data.map((m) => m.when).sort();
  test("the spec's maintenance example: an instant or a comparison", async () => {
    const res = await list("/account/maintenance", { when: { "+or": ["2030-01-01T00:00:00", { "+gt": "2030-06-01T00:00:00" }] } });
    expect(res.status).toBe(200);
    expect(whens(res.page)).toEqual(["2030-01-01T00:00:00", "2030-09-01T00:00:00"]);
  });
  test("+and of comparisons, nested +or, and beside other operators", async () => {
    const range = await list("/account/maintenance", { when: { "+and": [{ "+gt": "2030-01-01T00:00:00" }, { "+lt": "2030-06-01T00:00:00" }] } });
    expect(whens(range.page)).toEqual(["2030-03-01T00:00:00"]);
    const nested = await list("/account/maintenance", {
      when: { "+or": [{ "+or": ["2030-03-01T00:00:00"] }, { "+gte": "2030-09-01T00:00:00" }] },
      type: "reboot",
    });
    expect(whens(nested.page)).toEqual(["2030-09-01T00:00:00"]);
    const beside = await list("/account/maintenance", { when: { "+gt": "2030-01-01T00:00:00", "+or": ["2030-03-01T00:00:00", "2030-09-01T00:00:00"] } });
    expect(whens(beside.page)).toEqual(["2030-03-01T00:00:00", "2030-09-01T00:00:00"]);
  });
  test.each([
    ["+or not an array", { when: { "+or": "2030-01-01T00:00:00" } }],
    ["+or empty", { when: { "+or": [] } }],
    ["an item of the wrong type", { when: { "+or": [5] } }],
    ["a field inside", { when: { "+or": [{ type: "reboot" }] } }],
    ["+contains on a timestamp inside", { when: { "+or": [{ "+contains": "2030" }] } }],
  ])("refused: %s", async (_name, filter) => {
    const res = await list("/account/maintenance", filter);
    expect(res.status).toBe(400);
    expect((res.body as { errors: Array<{ field: string }> }).errors[0]!.field).toBe("X-Filter");
  });
});

describe("malformed filters are 400 naming X-Filter", () => {
  const cases: Array<[string, string | unknown]> = [
    ["bad JSON", "{label:"],
    ["empty header", ""],
    ["not an object", "[1]"],
    ["a string", '"label"'],
    ["unknown field", { nope: 1 }],
    ["field that exists but is not filterable", { scopes: "*" }],
    ["not filterable on /profile/tokens: expiry", { expiry: null }],
    ["unknown operator", { label: { "+like": "a" } }],
    ["unknown top-level operator", { "+not": [{ label: "a" }] }],
    ["+contains on a timestamp", { created: { "+contains": "2025" } }],
    ["+contains with a number", { label: { "+contains": 1 } }],
    ["+gt on a text field", { label: { "+gt": "a" } }],
    ["+gt with a non-timestamp on a timestamp", { created: { "+gt": "yesterday" } }],
    ["equality with the wrong type", { label: 5 }],
    ["operator object empty", { label: {} }],
    ["operator value an object", { label: { "+eq": { a: 1 } } }],
    ["+and not an array", { "+and": { label: "a" } }],
    ["+or item not an object", { "+or": ["a"] }],
    ["+and with items that are not objects", { "+and": [1] }],
    ["+order alone, not asc/desc", { "+order": "up" }],
    ["+order not asc/desc", { "+order_by": "label", "+order": "up" }],
    ["+order_by not filterable", { "+order_by": "scopes" }],
    ["+order_by not a string", { "+order_by": 1 }],
    ["+order_by nested", { "+or": [{ "+order_by": "label" }] }],
    ["too deep", JSON.stringify([...Array(12)].reduce((acc) => ({ "+and": [acc] }), { label: "a" }))],
  ];
  test.each(cases)("%s", async (_name, filter) => {
    const res = await list("/profile/tokens", filter);
    expect(res.status).toBe(400);
    const errors = (res.body as { errors: Array<{ field?: string; reason: string }> }).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe("X-Filter");
    expect(errors[0]!.reason.length).toBeGreaterThan(0);
  });
  test("a field that exists but is not filterable is named as upstream names it", async () => {
    const res = await list("/profile/tokens", { scopes: "*" });
    expect((res.body as { errors: Array<{ reason: string }> }).errors[0]!.reason).toBe("Cannot filter on scopes");
  });
  test("a list without filterable fields refuses any filter", async () => {
    const res = await list("/account/logins", { ip: "x" });
    expect(res.status).toBe(400);
    expect((res.body as { errors: Array<{ field: string }> }).errors[0]!.field).toBe("X-Filter");
  });
});

describe("the forms real clients send (issue 47, item 1)", () => {
  // The upstream Terraform provider's list data sources send an empty `+and` with `+order`.
  test('terraform-provider-linode: {"+and": [], "+order": "desc"} is 200, newest id first', async () => {
    const res = await list("/profile/tokens", { "+and": [], "+order": "desc" });
    expect(res.status).toBe(200);
    const ids = res.page.data.map((t) => t.id as number);
    expect(ids).toHaveLength(4);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });
  // linodego's `And()` with no nodes.
  test("linodego And(): an empty +and filters nothing", async () => {
    const res = await list("/profile/tokens", { "+and": [] });
    expect(res.status).toBe(200);
    expect(res.page.results).toBe(4);
  });
  // An empty `+or` is taken as an empty `+and` is: it filters nothing (issue 47, item 1).
  test("an empty +or filters nothing, at the top or nested, beside other conditions", async () => {
    const res = await list("/profile/tokens", { "+or": [] });
    expect(res.status).toBe(200);
    expect(res.page.results).toBe(4);
    const nested = await list("/profile/tokens", { "+and": [{ "+or": [] }, { label: "beta" }], "+order": "desc" });
    expect(nested.status).toBe(200);
    expect(labels(nested.page)).toEqual(["beta"]);
    expect((await list("/account/events", { "+or": [], "+order_by": "created", "+order": "desc" })).status).toBe(200);
    // Inside a field's operators it still needs values: `{"label": {"+or": []}}` names no value to compare.
    expect((await list("/profile/tokens", { label: { "+or": [] } })).status).toBe(400);
  });
  // The Ansible collection's list modules send `+order` without `+order_by`.
  test("ansible list modules: +order alone orders by id", async () => {
    const asc = await list("/profile/tokens", { "+order": "asc" });
    expect(asc.status).toBe(200);
    const ids = asc.page.data.map((t) => t.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const desc = await list("/account/events", { "+order": "desc" });
    expect(desc.status).toBe(200);
    const events = desc.page.data.map((e) => e.id as number);
    expect(events.length).toBeGreaterThan(0);
    expect(events).toEqual([...events].sort((a, b) => b - a));
  });
});

describe("/profile/sshkeys filters on label (the Ansible ssh_key_list module, issue 47 item 2)", () => {
  test("label equality and +contains", async () => {
    for (const label of ["laptop", "desktop"]) {
      expect((await call(server, "POST", "/profile/sshkeys", { json: { label, ssh_key: ed25519Key(label) } })).status).toBe(200);
    }
    const exact = await list("/profile/sshkeys", { label: "laptop" });
    expect(exact.status).toBe(200);
    expect(labels(exact.page)).toEqual(["laptop"]);
    expect(labels((await list("/profile/sshkeys", { label: { "+contains": "TOP" } })).page).sort()).toEqual(["desktop", "laptop"]);
  });
});

describe("the pure module", () => {
  test("dotted fields", () => {
    const items = [
      { id: 1, entity: { id: 7, type: "token" } },
      { id: 2, entity: { id: 9, type: "user_ssh_key" } },
      { id: 3, entity: null },
    ];
    const fields = { "entity.id": "number", "entity.type": "string", id: "number" } as const;
    const f = parseFilter(JSON.stringify({ "entity.type": "token" }), fields)!;
    expect(applyFilter(items, f).map((i) => i.id)).toEqual([1]);
    const g = parseFilter(JSON.stringify({ "entity.id": { "+gte": 8 }, "+order_by": "entity.id", "+order": "desc" }), fields)!;
    expect(applyFilter(items, g).map((i) => i.id)).toEqual([2]);
    const h = parseFilter(JSON.stringify({ "+order_by": "entity.id", "+order": "desc" }), fields)!;
    expect(applyFilter(items, h).map((i) => i.id)).toEqual([3, 2, 1]);
    expect(() => parseFilter(JSON.stringify({ "entity.label": "x" }), fields)).toThrow(/Cannot filter on entity.label/);
  });
  test("no header, no filter; repeated header refused", () => {
    expect(parseFilter(undefined, {})).toBeNull();
    expect(() => parseFilter(["{}", "{}"], {})).toThrow(/one X-Filter/);
  });
});
