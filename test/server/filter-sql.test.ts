/** @tier unit */
/**
 * X-Filter in SQL (issue 44, item 2) gives the answers the in-memory filter gave, on the same rows, on both stores
 * (the server-postgres project runs this file on Postgres): for events, invoices and maintenance, every filter below
 * answered by the store is compared with `applyFilter` over the whole unfiltered list, page by page, `results` and
 * `pages` included. The rows hold the edges: null entities, string and number entity ids, labels whose case folds
 * outside ASCII, equal sort keys, canceled maintenance.
 */
import { sql } from "kysely";
import { pageFrom } from "../../src/server/domain/paging";
import { applyFilter, parseFilter, type FilterFields } from "../../src/server/domain/filter";
import { filterSql, type FilterColumns } from "../../src/server/store/filter-sql";
import { API_FILTERABLE } from "../../src/contract";
import type { GrantsResponse } from "../../src/contract";
import { call, startTestServer, type TestServer } from "./helpers";
import { newActor } from "./actors";

let server: TestServer;
let accountId: number;
beforeAll(async () => {
  server = await startTestServer({ defaultFixtures: false });
  const actor = await server.domain.auth.authenticate(server.token!);
  accountId = actor.user.account_id;
  const labels = ["Alpha", "alpha", "İstanbul", "\u212aelvin", "kelvin", "Ünïcode", "zed", "50%_off", "Alpha"];
  const entities = [
    null,
    { id: 7, label: "seven", type: "compute", url: "/v4/compute/instances/7" },
    { id: "7", label: "seven", type: "tag", url: "/v4/tags/7" },
    { id: "web", label: "web", type: "tag", url: "/v4/tags/web" },
    { id: 12, label: "twelve", type: "token", url: "/v4/profile/tokens/12" },
  ];
  const actions = ["token_create", "tag_create", "user_ssh_key_add", "account_update"] as const;
  const ids: number[] = [];
  for (let i = 0; i < 37; i++) {
    server.clock.advance(60_000 * (i % 3));
    const e = await server.domain.events.record({ actor: i % 4 === 0 ? null : actor, accountId, action: actions[i % 4]!, entity: entities[i % 5]! });
    ids.push(e.id);
    await server.domain.billing.seedInvoice(accountId, {
      date: `2025-0${1 + (i % 3)}-01T00:00:00`,
      label: labels[i % labels.length]!,
      subtotal: 1,
      tax: 0,
      tax_summary: [],
      total: (i % 4) * 2.5,
      billing_source: i % 2 ? "compute" : "partner",
    });
    await server.domain.notices.seedMaintenance(accountId, {
      entity: { id: 100 + (i % 3), label: "vm", type: "linode", url: "/v4/linode/instances/1" },
      reason: "r",
      status: ["pending", "started", "canceled", "completed"][i % 4]!,
      type: i % 2 ? "reboot" : "migrate",
      when: `2030-0${1 + (i % 5)}-01T00:00:00`,
    });
  }
  for (const id of ids.filter((_, i) => i % 3 === 0)) expect((await call(server, "POST", `/account/events/${id}/read`)).status).toBe(200);
});
afterAll(() => server.close());

type Page = { data: unknown[]; page: number; pages: number; results: number };

/** Every item of `path` without a filter, in the list's order (as `token`'s user sees it). */
async function whole(path: string, token?: string): Promise<unknown[]> {
  const all: unknown[] = [];
  for (let n = 1; ; n++) {
    const body = (await call(server, "GET", `${path}?page=${n}&page_size=500`, { token })).body as Page;
    all.push(...body.data);
    if (n >= body.pages) return all;
  }
}

const FILTERS: Record<string, unknown[]> = {
  "/account/events": [
    {},
    { action: "tag_create" },
    { action: { "+neq": "tag_create" } },
    { "entity.id": 7 },
    { "entity.id": "7" },
    { "entity.id": null },
    { "entity.id": { "+neq": 7 } },
    { "entity.id": { "+gt": 6 } },
    { "entity.type": null },
    { "entity.type": { "+contains": "TO" } },
    { read: true },
    { read: false, "+order_by": "created", "+order": "desc" },
    { read: { "+neq": true } },
    { "+or": [{ action: "token_create" }, { "entity.type": "tag" }], "+order_by": "read" },
    { id: { "+gte": 10, "+lt": 30 }, "+order": "asc" },
    // Numbers an integer column cannot hold: compared as JavaScript compares them, never a refusal by the database.
    { id: 1e308 },
    { id: { "+lt": 10.5 } },
    { id: { "+neq": 2.5 } },
    { "entity.id": { "+lt": 1e308 } },
    { "+order_by": "entity.type", "+order": "asc" },
    { "+order_by": "entity.type", "+order": "desc" },
    { "+order_by": "entity.id" },
  ],
  "/account/invoices": [
    { label: { "+contains": "al" } },
    { label: { "+contains": "k" } },
    { label: { "+contains": "i" } },
    { label: { "+contains": "İ" } },
    { label: { "+contains": "%" } },
    { label: { "+contains": "_" } },
    { label: "Alpha", "+order_by": "total", "+order": "desc" },
    { total: { "+or": [0, { "+gt": 4 }] } },
    { total: { "+lte": 2.5 }, "+order_by": "label" },
    { total: { "+lt": 1e308 } },
    { "+order_by": "label", "+order": "desc" },
    { date: { "+gt": "2025-01-15T00:00:00" }, billing_source: { "+neq": "partner" } },
    { date: null },
    { "+and": [], "+order": "desc" },
    { "+or": [] },
  ],
  "/account/maintenance": [
    {},
    { status: "canceled" },
    { status: { "+neq": "pending" }, "+order_by": "when" },
    { when: { "+or": ["2030-02-01T00:00:00", { "+gt": "2030-04-01T00:00:00" }] } },
    { type: { "+contains": "BOOT" }, "+order_by": "status", "+order": "desc" },
    { "+order": "desc" },
  ],
};

const fieldsOf = (path: string): FilterFields =>
  path === "/account/events" ? { ...API_FILTERABLE["/account/events"], "entity.id": "id" } : (API_FILTERABLE as Record<string, FilterFields>)[path]!;

/** Every page of `path` under the filter `text` is the in-memory filter's page of the whole unfiltered list. */
async function sameAsInMemory(path: string, text: string, token?: string): Promise<void> {
  const all = await whole(path, token);
  const expected = applyFilter(all, parseFilter(text, fieldsOf(path))!);
  for (const size of [25, 500]) {
    for (let page = 1; page <= Math.max(1, Math.ceil(expected.length / size)) + 1; page++) {
      const res = await call(server, "GET", `${path}?page=${page}&page_size=${size}`, { headers: { "x-filter": text }, token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(pageFrom({ page, page_size: size }, expected));
    }
  }
}

// JSON's escapes keep a header ASCII (a header cannot carry "İ" as it is).
const ascii = (text: string) => text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

describe.each(Object.keys(FILTERS))("%s", (path) => {
  test.each(FILTERS[path]!.map((f) => [ascii(JSON.stringify(f)), f]))("%s: every page as the in-memory filter answers it", async (text) => {
    await sameAsInMemory(path, text);
  });
});

test("a restricted user's filtered events and maintenance: the grants' visibility and the filter together, as in memory", async () => {
  const restricted = await newActor(server, { restricted: true });
  expect(restricted.user.account_id).toBe(accountId);
  const grants = (await call(server, "GET", "/profile/grants", { token: restricted.token })).body as GrantsResponse;
  const compute = [7, 100, 101].map((id) => ({ id, label: `c${id}`, permissions: "read_only" as const }));
  await server.domain.users.setGrants(restricted.user.id, { ...grants, global: { ...grants.global, account_access: "read_only" }, compute });
  for (const path of ["/account/events", "/account/maintenance"]) {
    expect((await whole(path, restricted.token)).length).toBeGreaterThan(0);
    for (const filter of FILTERS[path]!) await sameAsInMemory(path, ascii(JSON.stringify(filter)), restricted.token);
  }
});

describe("filterSql", () => {
  const columns: FilterColumns = {
    label: { kind: "text", value: sql.ref("label") },
    "entity.id": { kind: "id", value: sql.ref("entity_id"), isNumber: sql`1 = 1`, isString: sql`1 = 0` },
  };
  const compiled = (text: string) => filterSql(parseFilter(text, { label: "string", "entity.id": "id" })!, columns, sql`id`, "sqlite");
  test("compiles what SQL says exactly", () => {
    expect(compiled(JSON.stringify({ label: { "+contains": "Ab%" }, "entity.id": { "+gt": 3 } }))).toBeDefined();
    expect(compiled(JSON.stringify({ "+or": [{ label: "x" }, { label: null }], "+order_by": "label" }))).toBeDefined();
  });
  test("leaves to memory a needle outside ASCII and an order by a number-or-string id", () => {
    expect(compiled(JSON.stringify({ label: { "+contains": "ü" } }))).toBeUndefined();
    expect(compiled(JSON.stringify({ "+or": [{ label: "x" }, { label: { "+contains": "İ" } }] }))).toBeUndefined();
    expect(compiled(JSON.stringify({ "+order_by": "entity.id" }))).toBeUndefined();
  });
});
