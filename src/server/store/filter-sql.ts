/**
 * X-Filter as SQL: the contract's parsed filter (`src/contract/x-filter.ts`) compiled to a where-condition and an
 * order over a list's columns, so a filtered list is filtered, ordered and paged by the store. The result must
 * select exactly the items `matches` keeps and order them as `applyFilter` does (its tests compare the two on the
 * same rows, both stores); what SQL cannot say exactly compiles to `undefined` and the list filters in memory.
 *
 * Where the two could differ, and how that is closed:
 *   - `+contains` folds case as JavaScript's `toLowerCase`: for a needle of ASCII only, the haystack's ASCII letters
 *     fold (SQLite's `lower`; Postgres's under collation "C"), and the two characters whose lower case is ASCII
 *     (U+0130, U+212A) are replaced as JavaScript lowers them. A needle with other characters is not compiled.
 *   - text order is by code point (SQLite's binary collation; Postgres's "C"), as JavaScript's `<` orders but for
 *     characters past U+FFFF against U+E000..U+FFFF (UTF-16 puts the former first): labels with both order apart.
 *   - nulls sort last ascending, first descending; ties keep the list's own order (the caller's `tiebreak`).
 *   - an `id` field (an event's `entity.id`, a number or a string) compares the stored text and the JSON type.
 */
import { PostgresAdapter, sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import type { SqlFlavor } from "./migrations";

/*
 * The parsed filter's shape (the contract's `Filter`, `src/contract/x-filter.ts`), said again here because the store
 * kernel imports nothing above it; a contract `Filter` is one of these, which the type checker proves where the
 * services hand theirs to a repository.
 */
type Scalar = string | number | boolean | null;
type Comparison = "+eq" | "+neq" | "+gt" | "+gte" | "+lt" | "+lte" | "+contains";
type Condition = { kind: "and"; all: Condition[] } | { kind: "or"; any: Condition[] } | { kind: "compare"; field: string; op: Comparison; value: Scalar };
export interface Filter {
  where: Condition;
  order: { field: string; direction: "asc" | "desc" } | null;
}

/**
 * One filterable field as SQL. `text`, `number`, `timestamp`: a column (null when the item has no value);
 * `boolean`: a condition never null; `id`: the value as text, with conditions for its JSON type.
 */
export type FilterColumn =
  | { kind: "text" | "number" | "timestamp"; value: Expression<unknown> }
  | { kind: "boolean"; value: Expression<SqlBool> }
  | { kind: "id"; value: Expression<unknown>; isNumber: Expression<SqlBool>; isString: Expression<SqlBool> };

export type FilterColumns = Readonly<Record<string, FilterColumn>>;

export interface FilterSql {
  where: RawBuilder<SqlBool>;
  /** The ORDER BY list, the filter's order first (when it has one), then `tiebreak`. */
  orderBy: RawBuilder<unknown>;
}

const TRUE = sql<SqlBool>`1 = 1`;
const FALSE = sql<SqlBool>`1 = 0`;
const not = (e: Expression<SqlBool>) => sql<SqlBool>`not (${e})`;
const ASCII_NEEDLE = /^[\x20-\x7e]*$/;
const ORDER_OPS: Partial<Record<Comparison, string>> = { "+gt": ">", "+gte": ">=", "+lt": "<", "+lte": "<=" };

/** A column as it orders: text by code point (SQLite's binary collation; Postgres's needs "C"). */
function byCodePoint(column: FilterColumn, flavor: SqlFlavor): RawBuilder<unknown> {
  return column.kind === "text" && flavor === "postgres" ? sql`${column.value} collate "C"` : sql`${column.value}`;
}

/** The haystack of `+contains` folded as JavaScript's `toLowerCase` folds what an ASCII needle can match. */
function folded(value: Expression<unknown>, flavor: SqlFlavor): RawBuilder<string> {
  const lower = flavor === "postgres" ? sql<string>`lower(${value} collate "C")` : sql<string>`lower(${value})`;
  return sql<string>`replace(replace(${lower}, ${"\u0130"}, ${"i\u0307"}), ${"\u212a"}, ${"k"})`;
}

function compare(column: FilterColumn, op: Comparison, v: Scalar, flavor: SqlFlavor): RawBuilder<SqlBool> | undefined {
  if (op === "+neq") {
    const eq = compare(column, "+eq", v, flavor);
    return eq && not(eq);
  }
  switch (column.kind) {
    case "boolean":
      if (op !== "+eq") return undefined;
      return v === null ? FALSE : v === true ? sql<SqlBool>`(${column.value})` : not(column.value);
    case "id": {
      const { value, isNumber, isString } = column;
      if (op === "+eq") {
        if (v === null) return not(sql<SqlBool>`(${isNumber}) or (${isString})`);
        if (typeof v === "number") return sql<SqlBool>`(${isNumber}) and ${value} = ${String(v)}`;
        if (typeof v === "string") return sql<SqlBool>`(${isString}) and ${value} = ${v}`;
        return undefined;
      }
      const sym = ORDER_OPS[op];
      if (sym === undefined || typeof v !== "number") return undefined;
      const real = flavor === "postgres" ? sql`double precision` : sql`real`;
      // CASE: Postgres does not promise to test the type before it casts.
      return sql<SqlBool>`case when ${isNumber} then cast(${value} as ${real}) end ${sql.raw(sym)} ${v}`;
    }
    default: {
      const { value } = column;
      if (op === "+eq") {
        if (v === null) return sql<SqlBool>`${value} is null`;
        // A null column is not equal: `not (c = v)` would be null there, so the null is said.
        return sql<SqlBool>`(${value} is not null and ${value} = ${operand(v, flavor)})`;
      }
      if (op === "+contains") {
        if (column.kind !== "text" || typeof v !== "string" || !ASCII_NEEDLE.test(v)) return undefined;
        const at = flavor === "postgres" ? sql`strpos(${folded(value, flavor)}, ${v.toLowerCase()})` : sql`instr(${folded(value, flavor)}, ${v.toLowerCase()})`;
        return sql<SqlBool>`coalesce(${at} > 0, ${FALSE})`;
      }
      const sym = ORDER_OPS[op];
      if (sym === undefined || v === null) return undefined;
      if (column.kind === "number" ? typeof v !== "number" : typeof v !== "string") return undefined;
      return sql<SqlBool>`coalesce(${byCodePoint(column, flavor)} ${sql.raw(sym)} ${operand(v, flavor)}, ${FALSE})`;
    }
  }
}

/**
 * A filter's value as the right side of a comparison. A number that is not a safe integer (1.5, 1e308) is
 * compared as a double, as JavaScript compares it: Postgres would read it as the column's type, and an
 * integer column refuses such text (a 500 where the in-memory filter simply matched nothing).
 */
function operand(v: Scalar, flavor: SqlFlavor): RawBuilder<unknown> | Scalar {
  if (typeof v !== "number" || Number.isSafeInteger(v) || flavor !== "postgres") return v;
  return sql`cast(${String(v)} as double precision)`;
}

/** `where` as a condition over `columns`; undefined when some part of it has no exact SQL. */
export function whereSql(where: Condition, columns: FilterColumns, flavor: SqlFlavor): RawBuilder<SqlBool> | undefined {
  switch (where.kind) {
    case "and":
    case "or": {
      const parts = where.kind === "and" ? where.all : where.any;
      if (parts.length === 0) return where.kind === "and" ? TRUE : FALSE;
      const compiled = parts.map((p) => whereSql(p, columns, flavor));
      if (compiled.some((c) => c === undefined)) return undefined;
      return sql<SqlBool>`(${sql.join(compiled as Array<RawBuilder<SqlBool>>, where.kind === "and" ? sql` and ` : sql` or `)})`;
    }
    default: {
      const column = columns[where.field];
      return column && compare(column, where.op, where.value, flavor);
    }
  }
}

/** The filter's order as ORDER BY terms; undefined when its field has no exact SQL order. */
function orderTerms(order: NonNullable<Filter["order"]>, columns: FilterColumns, flavor: SqlFlavor): RawBuilder<unknown> | undefined {
  const column = columns[order.field];
  if (column === undefined || column.kind === "id") return undefined;
  const dir = sql.raw(order.direction);
  if (column.kind === "boolean") return sql`case when ${column.value} then 1 else 0 end ${dir}`;
  const value = byCodePoint(column, flavor);
  // Ascending puts nulls last, descending first (the in-memory order reversed whole).
  return sql`case when ${column.value} is null then 1 else 0 end ${dir}, ${value} ${dir}`;
}

/**
 * The filter as SQL over `columns`, ordered by its `+order_by` then by `tiebreak` (the list's own order, which
 * the in-memory sort keeps among equals); undefined when any part has no exact SQL (filter in memory then).
 */
export function filterSql(filter: Filter, columns: FilterColumns, tiebreak: RawBuilder<unknown>, flavor: SqlFlavor): FilterSql | undefined {
  const where = whereSql(filter.where, columns, flavor);
  if (where === undefined) return undefined;
  if (filter.order === null) return { where, orderBy: tiebreak };
  const terms = orderTerms(filter.order, columns, flavor);
  return terms && { where, orderBy: sql`${terms}, ${tiebreak}` };
}

/** Which SQL a repository's database speaks. */
export const flavorOf = <DB>(db: Kysely<DB>): SqlFlavor => (db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite");
