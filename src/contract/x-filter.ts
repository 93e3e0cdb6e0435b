/**
 * Upstream's `X-Filter` grammar, the one place it is written down: parse the header's JSON,
 * validate it against a list's table of filterable fields, then evaluate and sort over plain
 * items. The server's lists (`src/server/domain/filter.ts` wraps the errors as 400s), the
 * client's `filter` option and the provider's data-source filters all check against it.
 *
 * Grammar (upstream's "Filtering and Sorting"):
 *   filter   := { key: value, ... }            keys are ANDed
 *   key      := <field> | "+and" | "+or" | "+order_by" | "+order"  (the last two top level only)
 *   <field>  := a filterable field, dotted for nested ones ("entity.type")
 *   value    := scalar (equality) | { op: operand, ... }
 *   op       := "+eq"|"+neq"|"+gt"|"+gte"|"+lt"|"+lte"|"+contains" (operand: scalar)
 *             | "+and"|"+or" (operand: non-empty array of values of the same field)
 *   "+and" as a key := array of filters; an empty one filters nothing (upstream's Terraform
 *                      provider sends `{"+and": [], "+order": "desc"}`, linodego's `And()` `+and: []`)
 *   "+or" as a key  := array of filters; an empty one filters nothing too, as an empty "+and" (a
 *                      client that builds its conditions in a loop sends one when it has none)
 *   "+order" without "+order_by" orders by the default key, `id` (the Ansible list modules send it)
 *
 * So `{"when": {"+or": ["2030-01-01T00:00:00", {"+gt": "2030-06-01T00:00:00"}]}}` is one
 * field's equality or comparison, as upstream's document shows for maintenance.
 */
import type { ApiFieldType } from "./filterable";
import { TIMESTAMP_PATTERN } from "./timestamps";

/**
 * How a field may be compared (the contract's field types): `+contains` needs text, `+gt`... a
 * number or a timestamp. `id`: a number or a string, as the server writes the field (an event's
 * `entity.id` is a number for most entities, a string for a tag, an OAuth client, an account or
 * a transfer); equality takes either, ordering a number.
 */
export type FilterFieldType = ApiFieldType | "id";
/** A list's filterable fields (dotted paths) and their types. */
export type FilterFields = Readonly<Record<string, FilterFieldType>>;

export type Scalar = string | number | boolean | null;
export type Comparison = "+eq" | "+neq" | "+gt" | "+gte" | "+lt" | "+lte" | "+contains";

export type Condition =
  { kind: "and"; all: Condition[] } | { kind: "or"; any: Condition[] } | { kind: "compare"; field: string; op: Comparison; value: Scalar };

export interface Filter {
  where: Condition;
  order: { field: string; direction: "asc" | "desc" } | null;
}

/** The header's name, as error items name it. */
export const FILTER_HEADER = "X-Filter";
/** Longest header value and deepest nesting accepted. */
export const FILTER_MAX_LENGTH = 8192;
export const FILTER_MAX_DEPTH = 8;

const COMPARISONS: readonly Comparison[] = ["+eq", "+neq", "+gt", "+gte", "+lt", "+lte", "+contains"];
const ORDERING: readonly Comparison[] = ["+gt", "+gte", "+lt", "+lte"];

/** The key `+order` alone orders by (upstream's default: the id). */
export const DEFAULT_ORDER_KEY = "id";

/** A filter the grammar refuses; `reason` is the text the server answers with (400 naming X-Filter). */
export class FilterError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "FilterError";
  }
}

const bad = (reason: string): FilterError => new FilterError(reason);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Parses the header (undefined or absent: no filter). Throws a `FilterError` for bad JSON, an
 * unknown or non-filterable field, or a misused operator.
 */
export function parseFilter(header: string | string[] | undefined, fields: FilterFields): Filter | null {
  if (header === undefined) return null;
  if (Array.isArray(header)) throw bad("Only one X-Filter header is allowed");
  if (header.length > FILTER_MAX_LENGTH) throw bad(`X-Filter is longer than ${FILTER_MAX_LENGTH} characters`);
  let json: unknown;
  try {
    json = JSON.parse(header);
  } catch {
    throw bad("X-Filter is not valid JSON");
  }
  if (!isObject(json)) throw bad("X-Filter must be a JSON object");
  const { "+order_by": orderBy, "+order": direction, ...rest } = json;
  const order = parseOrder(orderBy, direction, fields);
  return { where: parseObject(rest, 1, fields), order };
}

function checkField(fields: FilterFields, field: string): FilterFieldType {
  const type = fields[field];
  if (type !== undefined) return type;
  // Upstream's wording for both (`Cannot filter on scopes`); we do not say which it was.
  throw bad(`Cannot filter on ${field}`);
}

/** The top level's `+order_by` and `+order`. */
function parseOrder(orderBy: unknown, direction: unknown, fields: FilterFields): Filter["order"] {
  if (orderBy !== undefined) {
    if (typeof orderBy !== "string") throw bad("+order_by must be a field name");
    checkField(fields, orderBy);
    if (direction !== undefined && direction !== "asc" && direction !== "desc") throw bad("+order must be 'asc' or 'desc'");
    return { field: orderBy, direction: direction ?? "asc" };
  }
  if (direction !== undefined) {
    if (direction !== "asc" && direction !== "desc") throw bad("+order must be 'asc' or 'desc'");
    return { field: DEFAULT_ORDER_KEY, direction };
  }
  return null;
}

/** The operand of one comparison, checked against the field's type. */
function scalarFor(field: string, type: FilterFieldType, op: Comparison, value: unknown): Scalar {
  if (isObject(value) || Array.isArray(value)) throw bad(`'${field}' ${op} needs a single value`);
  const v = value as Scalar;
  if (op === "+contains") {
    if (type !== "string") throw bad(`+contains applies to text fields only, not '${field}'`);
    if (typeof v !== "string") throw bad(`+contains on '${field}' needs a string`);
    return v;
  }
  if (ORDERING.includes(op)) {
    if ((type === "number" || type === "id") && typeof v === "number") return v;
    if (type === "id") throw bad(`${op} on '${field}' needs a number`);
    if (type === "timestamp" && typeof v === "string" && TIMESTAMP_PATTERN.test(v)) return v;
    if (type === "number" || type === "timestamp") {
      throw bad(`${op} on '${field}' needs ${type === "number" ? "a number" : "a timestamp YYYY-MM-DDTHH:MM:SS"}`);
    }
    throw bad(`${op} applies to number and timestamp fields only, not '${field}'`);
  }
  // +eq / +neq / plain equality: the field's own type, or null.
  if (v === null) return v;
  const ok =
    (type === "string" && typeof v === "string") ||
    (type === "timestamp" && typeof v === "string") ||
    (type === "number" && typeof v === "number") ||
    (type === "id" && (typeof v === "number" || typeof v === "string")) ||
    (type === "boolean" && typeof v === "boolean");
  const kind = type === "timestamp" ? "string" : type === "id" ? "number or a string" : type;
  if (!ok) throw bad(`'${field}' is compared with a ${kind}, not ${JSON.stringify(v)}`);
  return v;
}

/** A filter object: its keys ANDed, `+and`/`+or` over nested filters. */
function parseObject(obj: Record<string, unknown>, depth: number, fields: FilterFields): Condition {
  if (depth > FILTER_MAX_DEPTH) throw bad(`X-Filter is nested deeper than ${FILTER_MAX_DEPTH} levels`);
  const all: Condition[] = [];
  for (const [key, value] of Object.entries(obj)) {
    if (key === "+order_by" || key === "+order") throw bad(`${key} is allowed at the top level only`);
    if (key === "+and" || key === "+or") {
      if (!Array.isArray(value)) throw bad(`${key} needs an array of filters`);
      // An empty `+and` is all of nothing: it filters nothing. So does an empty `+or`, as upstream
      // answers it: a client that builds its conditions in a loop sends one when it has none.
      if (value.length === 0) continue;
      const parts = value.map((item) => {
        if (!isObject(item)) throw bad(`${key} items must be JSON objects`);
        return parseObject(item, depth + 1, fields);
      });
      all.push(key === "+and" ? { kind: "and", all: parts } : { kind: "or", any: parts });
      continue;
    }
    if (key.startsWith("+")) throw bad(`Unknown operator '${key}'`);
    all.push(parseValue(key, checkField(fields, key), value, depth));
  }
  return all.length === 1 ? all[0]! : { kind: "and", all };
}

/** One field's value: a scalar (equality), or an object of operators, `+and`/`+or` over values of the field. */
function parseValue(field: string, type: FilterFieldType, value: unknown, depth: number): Condition {
  if (depth > FILTER_MAX_DEPTH) throw bad(`X-Filter is nested deeper than ${FILTER_MAX_DEPTH} levels`);
  if (!isObject(value)) return { kind: "compare", field, op: "+eq", value: scalarFor(field, type, "+eq", value) };
  const ops = Object.entries(value);
  if (ops.length === 0) throw bad(`'${field}' needs an operator`);
  const all = ops.map(([op, operand]): Condition => {
    if (op === "+and" || op === "+or") {
      if (!Array.isArray(operand) || operand.length === 0) throw bad(`${op} on '${field}' needs a non-empty array of values`);
      const parts = operand.map((item) => parseValue(field, type, item, depth + 1));
      return op === "+and" ? { kind: "and", all: parts } : { kind: "or", any: parts };
    }
    if (!COMPARISONS.includes(op as Comparison)) throw bad(`Unknown operator '${op}' on '${field}'`);
    return { kind: "compare", field, op: op as Comparison, value: scalarFor(field, type, op as Comparison, operand) };
  });
  return all.length === 1 ? all[0]! : { kind: "and", all };
}

/** A dotted path into a plain item; undefined when any step is missing. */
export function valueAt(item: unknown, path: string): unknown {
  let current: unknown = item;
  for (const step of path.split(".")) {
    if (!isObject(current)) return undefined;
    current = current[step];
  }
  return current;
}

function compare(actual: unknown, op: Comparison, expected: Scalar): boolean {
  switch (op) {
    case "+eq":
      return actual === expected || (expected === null && actual === undefined);
    case "+neq":
      return !(actual === expected || (expected === null && actual === undefined));
    case "+contains":
      return typeof actual === "string" && typeof expected === "string" && actual.toLowerCase().includes(expected.toLowerCase());
    default: {
      if (actual === null || actual === undefined || typeof actual !== typeof expected) return false;
      const a = actual as number | string;
      const e = expected as number | string;
      return op === "+gt" ? a > e : op === "+gte" ? a >= e : op === "+lt" ? a < e : a <= e;
    }
  }
}

export function matches(item: unknown, where: Condition): boolean {
  switch (where.kind) {
    case "and":
      return where.all.every((c) => matches(item, c));
    case "or":
      return where.any.some((c) => matches(item, c));
    default:
      return compare(valueAt(item, where.field), where.op, where.value);
  }
}

/** Ascending: nulls last (as Postgres orders); descending reverses that. Ties keep input order. */
function orderValues(a: unknown, b: unknown): number {
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** The items that match, in the filter's order (input order when none is given). */
export function applyFilter<T>(items: readonly T[], filter: Filter): T[] {
  const kept = items.filter((item) => matches(item, filter.where));
  const order = filter.order;
  if (order === null) return kept;
  const sign = order.direction === "asc" ? 1 : -1;
  return kept
    .map((item, index) => ({ item, index }))
    .sort((x, y) => sign * orderValues(valueAt(x.item, order.field), valueAt(y.item, order.field)) || x.index - y.index)
    .map((x) => x.item);
}
