/** @tier unit */
/** The shared filter model of list data sources, as pure functions; and its X-Filter table against the server's. */
import { bool, int, list, object, string } from "../../../src/provider/framework/attributes";
import type { ObjectValue } from "../../../src/provider/framework/value";
import { API_FILTERABLE } from "../../../src/contract/filterable";
import { parseFilter } from "../../../src/contract/x-filter";
import {
  apiFilter,
  argumentsId,
  filterAttributes,
  filterFieldsOf,
  matchesAll,
  parseQuery,
  sortItems,
  instantAttribute,
  validateFilters,
} from "../../../src/provider/datasources/filter";
import { dataSources } from "../../../src/provider/datasources";
import { eventsDataSource } from "../../../src/provider/datasources/events";
import { call, startTestServer } from "../../server/helpers";

const item = {
  id: int("computed", "id"),
  label: string("computed", "label"),
  read: bool("computed", "read"),
  created: instantAttribute("created"),
  tags: list("computed", "tags", "string"),
  entity: object("computed", "entity", { id: string("computed", "id"), type: string("computed", "type") }),
  nested_list: list("computed", "not filterable", object("computed", "x", { a: string("computed", "a") })),
};
const fields = filterFieldsOf(item, { id: "number", label: "string", created: "timestamp", "entity.id": "number", "entity.type": "string" });

const filters = (...fs: { name: string; values: string[]; match_by?: string | null }[]): ObjectValue => ({
  filter: fs.map((f) => ({ name: f.name, values: f.values, match_by: f.match_by ?? null })),
  order_by: null,
  order: null,
  limit: null,
});

const rows: ObjectValue[] = [
  { id: 1, label: "Laptop", read: true, created: "2025-01-01T00:00:00Z", tags: ["a", "b"], entity: { id: "10", type: "compute" } },
  { id: 2, label: "laptop-2", read: false, created: "2025-01-02T00:00:00Z", tags: ["b"], entity: { id: "ABC", type: "account" } },
  { id: 3, label: "desk", read: false, created: "2025-01-03T00:00:00Z", tags: [], entity: null },
];
const select = (config: ObjectValue) => rows.filter((r) => matchesAll(r, parseQuery(fields, config).conditions)).map((r) => r.id);

describe("filter fields", () => {
  it("are the scalars, string lists and nested scalars of the items, with the API's types where it filters", () => {
    expect(fields).toEqual({
      id: { type: "number", api: "number" },
      label: { type: "string", api: "string" },
      read: { type: "bool" },
      created: { type: "timestamp", api: "timestamp" },
      tags: { type: "strings" },
      "entity.id": { type: "string", api: "number" },
      "entity.type": { type: "string", api: "string" },
    });
  });

  it("refuse an API table naming a field the items lack", () => {
    expect(() => filterFieldsOf(item, { nope: "string" })).toThrow(/"nope"/);
  });

  it("offer order_by only on scalar fields", () => {
    const attrs = filterAttributes(fields);
    expect(attrs.order_by!.validators[0]!("tags" as never)).toMatch(/must be one of/);
    expect(attrs.order_by!.validators[0]!("entity.type" as never)).toBeUndefined();
  });
});

describe("validation at plan", () => {
  it("names the filter on an unknown field and lists the fields", () => {
    const [d] = validateFilters(fields, filters({ name: "label", values: ["x"] }, { name: "colour", values: ["red"] }));
    expect(d).toMatchObject({ severity: "error", summary: "Invalid filter 2", attribute: [{ attribute: "filter" }, { index: 1 }] });
    expect(d!.detail).toContain('filter 2 (name = "colour"): no such field');
    expect(d!.detail).toContain("entity.type");
  });

  it("names the filter whose regex does not compile", () => {
    const [d] = validateFilters(fields, filters({ name: "label", values: ["(unclosed"], match_by: "regex" }));
    expect(d!.detail).toMatch(/^filter 1 \(name = "label"\): the regular expression "\(unclosed" does not compile/);
  });

  it("refuses values an exact filter cannot compare, and empty value lists", () => {
    expect(validateFilters(fields, filters({ name: "id", values: ["seven"] }))[0]!.detail).toMatch(/"seven" is not a number/);
    expect(validateFilters(fields, filters({ name: "read", values: ["yes"] }))[0]!.detail).toMatch(/not true or false/);
    expect(validateFilters(fields, filters({ name: "created", values: ["yesterday"] }))[0]!.detail).toMatch(/not an RFC 3339/);
    expect(validateFilters(fields, filters({ name: "label", values: [] }))[0]!.detail).toMatch(/values must not be empty/);
  });

  it("wants order_by with order", () => {
    expect(validateFilters(fields, { filter: null, order_by: null, order: "desc", limit: null })[0]).toMatchObject({ summary: "Invalid order" });
    expect(validateFilters(fields, { filter: null, order_by: "id", order: "desc", limit: null })).toEqual([]);
  });
});

describe("matching", () => {
  it("ORs the values of a filter and ANDs the filters", () => {
    expect(select(filters({ name: "id", values: ["1", "3"] }))).toEqual([1, 3]);
    expect(select(filters({ name: "id", values: ["1", "2"] }, { name: "read", values: ["false"] }))).toEqual([2]);
  });

  it("compares exactly, by substring (case-sensitive) or by regex", () => {
    expect(select(filters({ name: "label", values: ["laptop"] }))).toEqual([]);
    expect(select(filters({ name: "label", values: ["aptop"], match_by: "substring" }))).toEqual([1, 2]);
    expect(select(filters({ name: "label", values: ["lap"], match_by: "substring" }))).toEqual([2]);
    expect(select(filters({ name: "label", values: ["^[Ll]aptop$"], match_by: "regex" }))).toEqual([1]);
  });

  it("compares instants as instants and lists by any element", () => {
    expect(select(filters({ name: "created", values: ["2025-01-02T09:00:00+09:00"] }))).toEqual([2]);
    expect(select(filters({ name: "tags", values: ["b"] }))).toEqual([1, 2]);
  });

  it("reaches nested fields and never matches a null object", () => {
    expect(select(filters({ name: "entity.type", values: ["account", "compute"] }))).toEqual([1, 2]);
    expect(select(filters({ name: "entity.id", values: ["ABC"] }))).toEqual([2]);
  });
});

describe("the X-Filter sent", () => {
  const header = (config: ObjectValue, extra: Record<string, unknown>[] = []) => apiFilter(fields, parseQuery(fields, config), extra);

  it("carries the filters on API fields, in the API's types; the rest stays local", () => {
    const config = {
      ...filters(
        { name: "id", values: ["1", "2"] },
        { name: "label", values: ["lap"], match_by: "substring" },
        { name: "read", values: ["true"] },
        { name: "label", values: ["^l"], match_by: "regex" },
      ),
    };
    expect(header(config).filter).toEqual({ "+and": [{ "+or": [{ id: 1 }, { id: 2 }] }, { label: { "+contains": "lap" } }] });
  });

  it("sends an instant in the API's form and a non-numeric entity id not at all", () => {
    expect(header(filters({ name: "created", values: ["2025-01-02T09:00:00+09:00"] })).filter).toEqual({ "+and": [{ created: "2025-01-02T00:00:00" }] });
    expect(header(filters({ name: "entity.id", values: ["10"] })).filter).toEqual({ "+and": [{ "entity.id": 10 }] });
    expect(header(filters({ name: "entity.id", values: ["10", "ABC"] })).filter).toBeUndefined();
  });

  it("orders on the API when it can, so a limit can stop paging early", () => {
    const byId = { filter: null, order_by: "id", order: "desc", limit: 5 };
    expect(header(byId)).toEqual({ filter: { "+order_by": "id", "+order": "desc" }, sortedByApi: true });
    expect(header({ ...byId, order_by: "read" })).toEqual({ filter: undefined, sortedByApi: false });
    expect(header({ filter: null, order_by: null, order: null, limit: null }, [{ created: { "+gte": "2025-01-01T00:00:00" } }]).filter).toEqual({
      "+and": [{ created: { "+gte": "2025-01-01T00:00:00" } }],
    });
  });
});

describe("the headers the provider writes are valid in the contract's X-Filter grammar", () => {
  const header = (config: ObjectValue) => apiFilter(fields, parseQuery(fields, config), []);
  const api = { id: "number", label: "string", created: "timestamp", "entity.id": "number", "entity.type": "string" } as const;
  it.each([
    ["conditions", filters({ name: "id", values: ["1", "2"] }, { name: "label", values: ["lap"], match_by: "substring" })],
    ["an instant", filters({ name: "created", values: ["2025-01-02T09:00:00+09:00"] })],
    ["an order", { filter: null, order_by: "id", order: "desc", limit: 5 }],
  ])("%s", (_name, config) => {
    const sent = header(config as ObjectValue).filter;
    expect(sent).toBeDefined();
    expect(parseFilter(JSON.stringify(sent), api)).not.toBeNull();
  });
});

describe("ordering and the id", () => {
  it("sorts stably, nulls last ascending and first descending", () => {
    const items: ObjectValue[] = [{ n: 2 }, { n: null }, { n: 1 }, { n: 2, second: true }];
    const f = { n: { type: "number" as const } };
    const q = (order: string) => parseQuery(f, { filter: null, order_by: "n", order, limit: null });
    expect(sortItems(items, q("asc"))).toEqual([{ n: 1 }, { n: 2 }, { n: 2, second: true }, { n: null }]);
    expect(sortItems(items, q("desc"))).toEqual([{ n: null }, { n: 2 }, { n: 2, second: true }, { n: 1 }]);
  });

  it("orders ids the API compares as numbers numerically, though shown as text", () => {
    const items: ObjectValue[] = [{ entity: { id: "1001" } }, { entity: { id: "999" } }, { entity: { id: "ABC" } }];
    const q = parseQuery(fields, { filter: null, order_by: "entity.id", order: "asc", limit: null });
    expect(sortItems(items, q).map((i) => (i.entity as ObjectValue).id)).toEqual(["999", "1001", "ABC"]);
    const asText = parseQuery(fields, { filter: null, order_by: "label", order: "asc", limit: null });
    expect(sortItems([{ label: "1001" }, { label: "999" }], asText).map((i) => i.label)).toEqual(["1001", "999"]);
  });

  it("hashes the arguments: equal arguments, equal ids; any change, another id", () => {
    const a = filters({ name: "label", values: ["x"] });
    expect(argumentsId("mgmt_x", a, ["filter", "limit"])).toBe(argumentsId("mgmt_x", { ...a }, ["filter", "limit"]));
    expect(argumentsId("mgmt_x", a, ["filter", "limit"])).not.toBe(argumentsId("mgmt_x", { ...a, limit: 1 }, ["filter", "limit"]));
    expect(argumentsId("mgmt_x", a, ["filter"])).not.toBe(argumentsId("mgmt_y", a, ["filter"]));
    expect(argumentsId("mgmt_x", a, ["filter"])).toMatch(/^[0-9a-f]{32}$/);
  });
});

it("the X-Filter table is the one mgmt serve publishes, and every list data source on such a path uses it", async () => {
  const server = await startTestServer();
  try {
    const doc = (await call(server, "GET", "/openapi.json", { token: null })).body as {
      paths: Record<string, { get?: { parameters?: { name: string; "x-filterable-fields"?: Record<string, string> }[] } }>;
    };
    const published = Object.fromEntries(
      Object.entries(doc.paths).flatMap(([path, ops]) => {
        const p = ops.get?.parameters?.find((x) => x.name === "X-Filter");
        return p?.["x-filterable-fields"] ? [[path.replace(/^\/v4/, ""), p["x-filterable-fields"]]] : [];
      }),
    );
    expect(API_FILTERABLE).toEqual(published);
  } finally {
    await server.close();
  }
  const events = eventsDataSource;
  expect(dataSources).toContain(events);
  expect(
    Object.keys(events.fields)
      .filter((f) => events.fields[f]!.api !== undefined)
      .sort(),
  ).toEqual(Object.keys(API_FILTERABLE["/account/events"]).sort());
});
