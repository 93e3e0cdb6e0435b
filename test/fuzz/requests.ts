/**
 * fast-check arbitraries of malformed (and sometimes well-formed) requests to the operations of
 * the server's own OpenAPI document: hostile path parameters, queries, headers and bodies, and
 * bodies derived from each operation's request schema with one field spoiled.
 */
import fc from "fast-check";

type Json = Record<string, unknown>;

/** One operation of the OpenAPI document. */
export interface Operation {
  method: string;
  /** OpenAPI syntax, `/profile/sshkeys/{sshKeyId}`, without the `/v4` prefix. */
  path: string;
  params: string[];
  /** The request body's JSON Schema, when the operation takes one. */
  body?: Json;
  /** Query parameter names. */
  query: string[];
  /** Accepts `X-Filter`. */
  filter: boolean;
}

export interface FuzzRequest {
  method: string;
  /** From the server root, already percent-encoded. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** The operation it was derived from, for failure reports. */
  op: string;
}

export function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const parameters = (op.parameters ?? []) as Array<{ name: string; in: string }>;
      const content = (op.requestBody as { content?: Record<string, { schema?: Json }> } | undefined)?.content;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: parameters.filter((p) => p.in === "path").map((p) => p.name),
        body: content?.["application/json"]?.schema,
        query: parameters.filter((p) => p.in === "query").map((p) => p.name),
        filter: parameters.some((p) => p.in === "header" && p.name === "X-Filter"),
      });
    }
  }
  return ops;
}

/** Values no store, dialect or parser should stumble on, already percent-encoded for a path. */
const HOSTILE_SEGMENTS = [
  "0",
  "-1",
  "1.5",
  "1e3",
  "0x10",
  "01",
  "2147483647",
  "2147483648",
  "4294967296",
  "9007199254740993",
  "99999999999999999999",
  "abc",
  "%00",
  "a%00b",
  "%ff",
  "%C0%AF",
  "%E2%80%AE",
  "%F0%9F%92%A5",
  "%2e%2e",
  "%2F",
  "%20",
  "%25",
  "%",
  "%zz",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "'%20OR%201=1--",
  "x".repeat(300),
  "%ED%A0%80",
];

const HOSTILE_VALUES: unknown[] = [
  null,
  -1,
  0,
  1.5,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  -1e308,
  5e-324,
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "💥",
  "\u202e",
  "x".repeat(70_000),
  "1",
  "true",
  "null",
  "1970-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "2025-02-30T00:00:00",
  "*",
  "account:read_write",
  "' OR 1=1 --",
  [],
  [null],
  {},
  { "": null },
  true,
  false,
  { constructor: { prototype: { x: 1 } } },
];

/** Plausible text for fields the contract checks closely, so that generated bodies get past the first check. */
function plausible(name: string, sshKeys: readonly string[]): fc.Arbitrary<unknown> | undefined {
  if (name === "ssh_key") return fc.constantFrom(...sshKeys);
  if (/uri|url|website/.test(name)) return fc.constantFrom("https://app.example.com/cb", "http://localhost:8080/x", "not a url", "javascript:alert(1)");
  if (/expiry|date|when|until/.test(name)) return fc.constantFrom("2030-01-01T00:00:00", "2030-01-01T00:00:00Z", "yesterday", "2000-01-01T00:00:00");
  if (name === "scopes") return fc.constantFrom("*", "account:read_only", "account:read_write sshkeys:read_write", "bogus:read_only", "");
  if (name === "email") return fc.constantFrom("a@example.com", "not an email", "x@y");
  if (/iso_code|country/.test(name)) return fc.constantFrom("US", "GB", "ZZ", "u");
  return undefined;
}

/** A value following `schema` loosely (lengths and counts capped), for a body that may get far. */
export function fromSchema(schema: Json | undefined, sshKeys: readonly string[], name = "", depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  const near = plausible(name, sshKeys);
  if (near !== undefined) return near;
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (variants !== undefined) return fc.oneof(...variants.map((v) => fromSchema(v, sshKeys, name, depth + 1)));
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => fromSchema({ ...schema, type: t }, sshKeys, name, depth + 1)));
  switch (type) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Json>;
      if (Object.keys(props).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const shape = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, sshKeys, k, depth + 1)]));
      return fc.record(shape, { requiredKeys: ((schema.required ?? []) as string[]).filter((k) => k in shape) });
    }
    case "array": {
      const min = Math.min(Number(schema.minItems ?? 0), 5);
      return fc.array(fromSchema(schema.items as Json | undefined, sshKeys, name, depth + 1), {
        minLength: min,
        maxLength: Math.max(min, Math.min(Number(schema.maxItems ?? 4), 5)),
      });
    }
    case "string": {
      const min = Number(schema.minLength ?? 0);
      const max = Math.max(min, Math.min(Number(schema.maxLength ?? 40), 120));
      return fc.string({ minLength: min, maxLength: max, unit: "grapheme" });
    }
    case "integer":
      return fc.integer({ min: Number(schema.minimum ?? -1000), max: Number(schema.maximum ?? 1_000_000) });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** The places inside `value` (object fields and array items, at any depth) a value can be put. */
function slots(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== "object" || value === null) return [];
  const here = Array.isArray(value) ? value.map((_v, i) => [...path, i]) : Object.keys(value).map((k) => [...path, k]);
  return here.flatMap((p) => [p, ...slots((value as Record<string | number, unknown>)[p[p.length - 1]!], p)]);
}

/** `value` with one field or item, at any depth, replaced by something hostile (or one added; or the whole value). */
const spoiled = (valid: fc.Arbitrary<unknown>) =>
  fc.tuple(valid, fc.constantFrom(...HOSTILE_VALUES), fc.nat(), fc.string({ maxLength: 6 })).map(([value, bad, pick, extra]) => {
    if (typeof value !== "object" || value === null) return bad;
    const copy = structuredClone(value) as Record<string | number, unknown>;
    const places = slots(copy);
    if (places.length === 0 || pick % 6 === 0) {
      if (!Array.isArray(copy)) copy[extra] = bad;
      return copy;
    }
    const place = places[pick % places.length]!;
    let parent = copy;
    for (const step of place.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
    parent[place[place.length - 1]!] = bad;
    return copy;
  });

const nested = (depth: number, open: string, close: string) => open.repeat(depth) + "1" + close.repeat(depth);

const MALFORMED_TEXT = [
  "{",
  "}",
  "[",
  '{"a":}',
  "{'a':1}",
  "nul",
  "tru",
  '"\\u12"',
  '{"a":1,}',
  "[1,]",
  "\u0000",
  '{"a":"\\ud800"}',
  '{"a\\udfff\\udfff":1}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{}}}',
  "1e999999",
  "-",
  '{"a":1}{"b":2}',
  " ",
  "\n",
  "\ufeff{}",
];

export function bodyArbitrary(op: Operation, sshKeys: readonly string[]): fc.Arbitrary<string | undefined> {
  const valid = fromSchema(op.body ?? { type: "object" }, sshKeys);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom("", "{}", "[]", "null", "0", '""') },
    { weight: 5, arbitrary: valid.map((v) => JSON.stringify(v)) },
    { weight: 8, arbitrary: spoiled(valid).map((v) => JSON.stringify(v) ?? "null") },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_TEXT) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 20, max: 6000 }), fc.boolean())
        .map(([d, arrays]) => (arrays ? nested(d, "[", "]") : `{"a":${nested(d, '{"a":', "}")}}`)),
    },
  );
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/JSON",
  "application/x-www-form-urlencoded",
  "text/plain",
  "multipart/form-data; boundary=x",
  "image/png",
  "application/octet-stream",
  ";;;",
  "application/json; charset=latin1",
  "*/*",
];

const QUERY_VALUES = ["1", "0", "-1", "2", "25", "24", "500", "501", "abc", "1.5", "99999999999999999999", "%00", "", "1e2", "%20"];

const FILTERS = [
  "{}",
  '{"label":"x"}',
  '{"+order_by":"id","+order":"desc"}',
  '{"id":{"+gt":2147483648}}',
  '{"+or":[]}',
  '{"+and":[{"+and":[{"+and":[{}]}]}]}',
  '{"label":{"+contains":"\\u0000"}}',
  '{"nope":1}',
  "[]",
  "null",
  "{",
  '"x"',
  '{"created":{"+gte":"yesterday"}}',
  '{"+order_by":"nope"}',
  '{"id":{"+eq":1e308}}',
  '{"id":{"+lt":-1}}',
];

export interface Knowns {
  /** Values that name existing objects, by path parameter name. */
  values: Record<string, string[]>;
  token: string;
  /** A token without write scopes, to reach the scope checks. */
  readOnlyToken: string;
  sshKeys: readonly string[];
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

export function requestArbitrary(ops: readonly Operation[], knowns: () => Knowns): fc.Arbitrary<FuzzRequest> {
  // Built once per operation and set of known values: building them is dearer than drawing from them.
  const built = new WeakMap<Knowns, Map<Operation, fc.Arbitrary<FuzzRequest>>>();
  return fc.constantFrom(...ops).chain((op) => {
    const k = knowns();
    let forKnowns = built.get(k);
    if (forKnowns === undefined) built.set(k, (forKnowns = new Map()));
    let arbitrary = forKnowns.get(op);
    if (arbitrary === undefined) forKnowns.set(op, (arbitrary = operationArbitrary(op, k)));
    return arbitrary;
  });
}

function operationArbitrary(op: Operation, k: Knowns): fc.Arbitrary<FuzzRequest> {
  {
    const param = (name: string) => {
      const known = k.values[name] ?? [];
      return fc.oneof(
        { weight: known.length > 0 ? 6 : 0, arbitrary: known.length > 0 ? fc.constantFrom(...known).map(encodeURIComponent) : fc.constant("1") },
        { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
        { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 20, unit: "binary" }).map(encodeURIComponent) },
      );
    };
    const params = fc.tuple(...op.params.map(param));
    const query = fc.dictionary(fc.constantFrom(...op.query, "page", "page_size", "x", "page[]"), fc.constantFrom(...QUERY_VALUES), { maxKeys: 3 });
    const auth = fc.oneof(
      { weight: 12, arbitrary: fc.constant(`Bearer ${k.token}`) },
      { weight: 2, arbitrary: fc.constant(`Bearer ${k.readOnlyToken}`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom("", "Bearer", "Bearer x", "Basic dXNlcjpwYXNz", `bearer ${k.token}`, `Bearer ${k.token}x`, `Bearer ${"a".repeat(300)}`),
      },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
    const method = fc.oneof({ weight: 12, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) });
    const contentType = fc.oneof(
      { weight: 6, arbitrary: fc.constant("application/json") },
      { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
    const filter = op.filter
      ? fc.option(
          fc.oneof(
            fc.constantFrom(...FILTERS),
            fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
          ),
          { freq: 2 },
        )
      : fc.constant(null);
    const declared = fc.constantFrom("none", "none", "none", "none", "zero", "chunked");
    return fc
      .record({ method, params, query, auth, contentType, filter, body: bodyArbitrary(op, k.sshKeys), declared, beta: fc.boolean() })
      .map((r): FuzzRequest => {
        let i = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => r.params[i++]!);
        const qs = Object.entries(r.query)
          .map(([key, v]) => `${encodeURIComponent(key)}=${v}`)
          .join("&");
        const headers: Record<string, string> = {};
        if (r.auth !== undefined) headers.authorization = r.auth;
        if (r.contentType !== undefined && (r.body !== undefined || r.declared !== "none")) headers["content-type"] = r.contentType;
        if (r.filter !== null && r.filter !== undefined) headers["x-filter"] = r.filter;
        if (r.body === undefined && r.declared === "zero") headers["content-length"] = "0";
        return {
          method: r.method,
          path: `/${r.beta ? "v4beta" : "v4"}${path}${qs === "" ? "" : `?${qs}`}`,
          headers,
          body: r.body === undefined && r.declared === "chunked" ? Buffer.alloc(0) : r.body,
          op: `${op.method} ${op.path}`,
        };
      });
  }
}
