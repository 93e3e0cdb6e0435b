/**
 * Every row of every table (not the migration bookkeeping, nor the change counters of
 * ./throughput/table-marks.ts, which count writes rather than hold data), as sorted text lines per table:
 * a value two states of the store can be compared by, whatever the dialect's row order. For
 * tests and tooling that check a request changed nothing, so it is one query, however many
 * tables there are.
 */
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from "kysely";
import { TABLE_MARKS } from "./throughput";

export type Dump = Record<string, string[]>;

export interface TableColumns {
  name: string;
  columns: string[];
}

export async function dumpDatabase(db: Kysely<unknown>, tables?: readonly TableColumns[]): Promise<Dump> {
  const list = tables ?? (await tablesOf(db));
  const out: Dump = Object.fromEntries(list.map((t) => [t.name, [] as string[]]));
  if (list.length === 0) return out;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const selects = list.map(({ name, columns }): RawBuilder<unknown> => {
    // SQLite has no row_to_json; quote() renders every type, blobs included, unambiguously.
    const row = postgres
      ? sql`row_to_json(${sql.table(name)})::text`
      : sql.join(
          columns.map((c) => sql`quote(${sql.ref(c)})`),
          sql` || ',' || `,
        );
    return sql`SELECT ${sql.lit(name)} AS t, ${row} AS r FROM ${sql.table(name)}`;
  });
  const rows = await sql<{ t: string; r: string }>`${sql.join(selects, sql` UNION ALL `)}`.execute(db);
  for (const { t, r } of rows.rows) out[t]!.push(r);
  for (const lines of Object.values(out)) lines.sort();
  return out;
}

export async function tablesOf(db: Kysely<unknown>): Promise<TableColumns[]> {
  return (await db.introspection.getTables())
    .filter((t) => !t.isView && t.name !== TABLE_MARKS)
    .map((t) => ({ name: t.name, columns: t.columns.map((c) => c.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A value that stays the same while no transaction has written to the store, and changes once
 * one may have (even one rolled back): a cheap test before comparing two dumps. SQLite counts
 * the rows its one connection changed; Postgres gives out a transaction id to every transaction
 * that writes, so the next one to be given (cluster-wide) moves.
 */
export async function changeMark(db: Kysely<unknown>): Promise<string> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const query = postgres ? sql<{ n: unknown }>`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS n` : sql<{ n: unknown }>`SELECT total_changes() AS n`;
  return String((await query.execute(db)).rows[0]?.n);
}
