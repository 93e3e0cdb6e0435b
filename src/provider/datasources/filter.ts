/**
 * The filter model every list data source shares, after upstream's generic filter blocks:
 * `filter` entries `{ name, values, match_by }` (values OR-ed, entries AND-ed), `order_by`,
 * `order` and `limit`.
 *
 * A filter names an attribute of the listed items (dotted for a nested one, `entity.type`).
 * Conditions on a field the API filters (the contract's API_FILTERABLE table) are also sent as
 * X-Filter so the API answers only matching rows; every condition is then checked again here,
 * on the items as the data source shows them, so the result never depends on what the server
 * filtered (its `+contains` ignores case, ours does not: the server returns a superset).
 *
 * This module is pure: it knows Terraform values and X-Filter JSON, not the client.
 */
import { createHash } from "node:crypto";
import { int, list, listBlock, string, type AttributeSpec } from "../framework/attributes";
import { attr, error, type Diagnostic } from "../framework/diagnostics";
import type { Attributes } from "../framework/resource";
import { oneOf } from "../framework/validators";
import { isUnknown, isWhollyKnown, type ObjectValue, type TfValue } from "../framework/value";
import { formatTimestamp, parseRfc3339 } from "../../contract/timestamps";
import type { ApiFieldType } from "../../contract/filterable";

/** How a field's values compare: as text, numbers, booleans, instants, or any element of a list of strings. */
export type FieldType = "string" | "number" | "bool" | "timestamp" | "strings";

export interface FilterField {
  readonly type: FieldType;
  /** The field's type in the API's X-Filter table, when the API filters on it. */
  readonly api?: ApiFieldType;
}

/** Filterable fields of one list, by the (dotted) attribute name users write. */
export type FilterFields = Readonly<Record<string, FilterField>>;

export const MATCH_BY = ["exact", "substring", "regex"] as const;
export type MatchBy = (typeof MATCH_BY)[number];

/** Marks string attributes that hold RFC 3339 instants, so filters compare them as instants. */
const timestampSpecs = new WeakSet<AttributeSpec>();

/** A computed RFC 3339 instant attribute (the API's UTC timestamps shown with a `Z`). */
export function instantAttribute(description: string, nullable = false): AttributeSpec {
  const spec = string("computed", `${description.replace(/\.$/, "")} (RFC 3339)${nullable ? "; null when not set" : ""}.`);
  timestampSpecs.add(spec);
  return spec;
}

/**
 * Every attribute of an item a filter may name: scalars, lists of strings, and the scalars of
 * nested objects under dotted names. `api` says which of them the API filters, and as what.
 */
export function filterFieldsOf(item: Attributes, api: Readonly<Record<string, ApiFieldType>> = {}): FilterFields {
  const out: Record<string, FilterField> = {};
  const walk = (attrs: Attributes, prefix: string) => {
    for (const [name, spec] of Object.entries(attrs)) {
      const path = prefix + name;
      const type = fieldType(spec);
      if (type !== undefined) out[path] = api[path] !== undefined ? { type, api: api[path] } : { type };
      else if (Array.isArray(spec.type) && spec.type[0] === "object" && spec.nested) walk(spec.nested, `${path}.`);
    }
  };
  walk(item, "");
  for (const path of Object.keys(api)) {
    if (out[path] === undefined) throw new Error(`the API filters on "${path}", which the items do not have`);
  }
  return out;
}

function fieldType(spec: AttributeSpec): FieldType | undefined {
  if (spec.type === "string") return timestampSpecs.has(spec) ? "timestamp" : "string";
  if (spec.type === "number") return "number";
  if (spec.type === "bool") return "bool";
  const t = spec.type;
  if (Array.isArray(t) && (t[0] === "list" || t[0] === "set") && t[1] === "string") return "strings";
  return undefined;
}

/** The arguments a list data source takes for filtering, ordering and limiting. */
export function filterAttributes(fields: FilterFields): Attributes {
  const names = Object.keys(fields).sort();
  const orderable = names.filter((n) => fields[n]!.type !== "strings");
  const serverSide = names.filter((n) => fields[n]!.api !== undefined);
  const sent = serverSide.length > 0 ? ` Filters on ${serverSide.map((n) => `\`${n}\``).join(", ")} are also sent to the API (X-Filter).` : "";
  return {
    filter: listBlock(
      `Conditions the items must meet: every filter block must match (AND); within one, any of its values (OR). Fields: ${names.map((n) => `\`${n}\``).join(", ")}.${sent}`,
      {
        name: string("required", "The item attribute to test; dotted for a nested one (`entity.type`)."),
        values: list("required", "Values to match; an item matches when any of them does.", "string"),
        match_by: string(
          "optional",
          'How to compare: "exact" (the default), "substring" (case-sensitive) or "regex" (a JavaScript regular expression, unanchored).',
          {
            validate: oneOf(MATCH_BY),
          },
        ),
      },
    ),
    order_by: string("optional", `Attribute to sort the items by: ${orderable.map((n) => `\`${n}\``).join(", ")}.`, { validate: oneOf(orderable) }),
    order: string("optional", 'Direction for `order_by`: "asc" (the default) or "desc". Nulls sort last ascending, first descending.', {
      validate: oneOf(["asc", "desc"]),
    }),
    limit: int("optional", "Return at most this many items (after filtering and ordering).", {
      validate: (v) => (v >= 1 ? undefined : `must be at least 1; got ${v}`),
    }),
  };
}

/** One parsed filter entry. */
export interface Condition {
  readonly field: string;
  readonly type: FieldType;
  readonly matchBy: MatchBy;
  readonly values: readonly string[];
  /** For regex filters, compiled once. */
  readonly patterns?: readonly RegExp[];
  /** The X-Filter part for this condition, when the API can pre-filter it. */
  readonly api?: Readonly<Record<string, unknown>>;
}

export interface ListQuery {
  readonly conditions: readonly Condition[];
  readonly orderBy: string | undefined;
  readonly order: "asc" | "desc";
  /** Whether order_by holds numbers the API orders numerically, though shown as text (`entity.id`). */
  readonly orderNumeric: boolean;
  readonly limit: number | undefined;
}

/** Plan-time checks of the filter arguments: unknown fields, uncompilable regexes, values of the wrong type. */
export function validateFilters(fields: FilterFields, config: ObjectValue): Diagnostic[] {
  const out: Diagnostic[] = [];
  const filters = config.filter;
  if (Array.isArray(filters)) {
    (filters as TfValue[]).forEach((f, i) => {
      if (f === null || isUnknown(f) || !isWhollyKnown(f)) return;
      const result = parseCondition(fields, f as ObjectValue, i);
      if (typeof result === "string") out.push(error(`Invalid filter ${i + 1}`, result, [{ attribute: "filter" }, { index: i }]));
    });
  }
  if ((config.order ?? null) !== null && (config.order_by ?? null) === null) {
    out.push(error("Invalid order", "order applies to order_by; set order_by too.", attr("order")));
  }
  return out;
}

const describe = (i: number, name: string) => `filter ${i + 1} (name = "${name}")`;

/** A condition, or why the entry is invalid (naming the filter). */
function parseCondition(fields: FilterFields, f: ObjectValue, i: number): Condition | string {
  const name = String(f.name);
  const field = fields[name];
  if (field === undefined) return `${describe(i, name)}: no such field; filterable fields are ${Object.keys(fields).sort().join(", ")}.`;
  const values = ((f.values ?? []) as TfValue[]).map(String);
  if (values.length === 0) return `${describe(i, name)}: values must not be empty.`;
  const matchBy = (f.match_by ?? "exact") as MatchBy;
  if (matchBy === "regex") {
    const patterns: RegExp[] = [];
    for (const v of values) {
      try {
        patterns.push(new RegExp(v, "u"));
      } catch (err) {
        return `${describe(i, name)}: the regular expression ${JSON.stringify(v)} does not compile: ${(err as Error).message}`;
      }
    }
    return { field: name, type: field.type, matchBy, values, patterns };
  }
  if (matchBy === "exact") {
    for (const v of values) {
      const reason = checkExactValue(field.type, v);
      if (reason !== undefined) return `${describe(i, name)}: ${reason}`;
    }
  }
  const api = apiCondition(name, field, matchBy, values);
  return { field: name, type: field.type, matchBy, values, ...(api ? { api } : {}) };
}

function checkExactValue(type: FieldType, v: string): string | undefined {
  if (type === "number" && !Number.isFinite(Number(v))) return `${JSON.stringify(v)} is not a number.`;
  if (type === "bool" && v !== "true" && v !== "false") return `${JSON.stringify(v)} is not true or false.`;
  if (type === "timestamp" && parseRfc3339(v) === undefined) return `${JSON.stringify(v)} is not an RFC 3339 date-time such as 2030-01-01T00:00:00Z.`;
  return undefined;
}

/** The X-Filter value of one filter value, or undefined when the API could not take it (local only then). */
export function apiValue(type: ApiFieldType, v: string): string | number | boolean | undefined {
  switch (type) {
    case "string":
      return v;
    case "number":
      return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
    case "boolean":
      return v === "true" ? true : v === "false" ? false : undefined;
    case "timestamp": {
      const ms = parseRfc3339(v);
      return ms === undefined ? undefined : formatTimestamp(ms);
    }
  }
}

function apiCondition(name: string, field: FilterField, matchBy: MatchBy, values: readonly string[]): Record<string, unknown> | undefined {
  if (field.api === undefined) return undefined;
  let parts: Record<string, unknown>[];
  if (matchBy === "exact") {
    const converted = values.map((v) => apiValue(field.api!, v));
    if (converted.some((v) => v === undefined)) return undefined;
    parts = converted.map((v) => ({ [name]: v }));
  } else if (matchBy === "substring" && field.api === "string") {
    parts = values.map((v) => ({ [name]: { "+contains": v } }));
  } else {
    return undefined;
  }
  return parts.length === 1 ? parts[0] : { "+or": parts };
}

/** The query a (validated) configuration asks for. Throws on an invalid filter, which validation reports first. */
export function parseQuery(fields: FilterFields, config: ObjectValue): ListQuery {
  const conditions = ((config.filter ?? []) as ObjectValue[]).map((f, i) => {
    const c = parseCondition(fields, f, i);
    if (typeof c === "string") throw new Error(c);
    return c;
  });
  const orderBy = typeof config.order_by === "string" ? config.order_by : undefined;
  const order = config.order === "desc" ? "desc" : "asc";
  const limit = typeof config.limit === "number" ? config.limit : typeof config.limit === "bigint" ? Number(config.limit) : undefined;
  const orderNumeric = orderBy !== undefined && fields[orderBy]?.api === "number";
  return { conditions, orderBy, order, orderNumeric, limit };
}

/**
 * The X-Filter header for a query, plus conditions of the data source's own (`created_after`);
 * undefined when nothing can be sent. `sortedByApi` says whether the API orders the rows as
 * asked, which lets a limited read stop paging early.
 */
export function apiFilter(
  fields: FilterFields,
  q: ListQuery,
  extra: readonly Record<string, unknown>[] = [],
): { filter: Record<string, unknown> | undefined; sortedByApi: boolean } {
  const parts = [...q.conditions.flatMap((c) => (c.api ? [c.api] : [])), ...extra];
  const filter: Record<string, unknown> = {};
  if (parts.length > 0) filter["+and"] = parts;
  const sortedByApi = q.orderBy === undefined || fields[q.orderBy]?.api !== undefined;
  if (q.orderBy !== undefined && sortedByApi) {
    filter["+order_by"] = q.orderBy;
    filter["+order"] = q.order;
  }
  return { filter: Object.keys(filter).length > 0 ? filter : undefined, sortedByApi };
}

/** The value at a dotted path of an item. */
export function valueAt(item: ObjectValue, path: string): TfValue {
  let current: TfValue = item;
  for (const step of path.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return null;
    current = (current as ObjectValue)[step] ?? null;
  }
  return current;
}

const text = (v: TfValue): string => (typeof v === "string" ? v : String(v));

function matchOne(c: Condition, actual: TfValue): boolean {
  if (actual === null) return false;
  switch (c.matchBy) {
    case "regex":
      return c.patterns!.some((p) => p.test(text(actual)));
    case "substring":
      return c.values.some((v) => text(actual).includes(v));
    case "exact":
      return c.values.some((v) => {
        if (c.type === "number") return Number(actual) === Number(v);
        if (c.type === "timestamp") return typeof actual === "string" && parseRfc3339(actual) === parseRfc3339(v);
        return text(actual) === v;
      });
  }
}

/** Whether an item meets every condition (a list of strings matches when any element does). */
export function matchesAll(item: ObjectValue, conditions: readonly Condition[]): boolean {
  return conditions.every((c) => {
    const actual = valueAt(item, c.field);
    return Array.isArray(actual) ? (actual as TfValue[]).some((a) => matchOne(c, a)) : matchOne(c, actual);
  });
}

const NUMERIC = /^-?\d+(\.\d+)?$/;

function compareValues(a: TfValue, b: TfValue, numeric: boolean): number {
  const an = a === null;
  const bn = b === null;
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  if (typeof a === "number" || typeof a === "bigint") return Number(a) - Number(b);
  if (numeric && typeof a === "string" && typeof b === "string" && NUMERIC.test(a) && NUMERIC.test(b)) return Number(a) - Number(b);
  if (typeof a === "boolean") return Number(a) - Number(b);
  const sa = text(a);
  const sb = text(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** The items in the query's order (stable: ties keep the API's order), ascending nulls last. */
export function sortItems(items: readonly ObjectValue[], q: ListQuery): ObjectValue[] {
  if (q.orderBy === undefined) return [...items];
  const sign = q.order === "asc" ? 1 : -1;
  const key = q.orderBy;
  return items
    .map((item, index) => ({ item, index }))
    .sort((x, y) => sign * compareValues(valueAt(x.item, key), valueAt(y.item, key), q.orderNumeric) || x.index - y.index)
    .map((x) => x.item);
}

/**
 * The data source's `id`: a hash of its arguments, so the same arguments give the same id in
 * every run (what engines and `depends_on` chains expect of a data source).
 */
export function argumentsId(typeName: string, config: ObjectValue, argumentNames: readonly string[]): string {
  const args = Object.fromEntries(argumentNames.map((n) => [n, config[n] ?? null]));
  return createHash("sha256")
    .update(JSON.stringify([typeName, args], (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)))
    .digest("hex")
    .slice(0, 32);
}
