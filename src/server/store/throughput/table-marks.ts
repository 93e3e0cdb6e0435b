/**
 * Change counters of the few tables every request reads and few requests write (the Postgres
 * store's): a token's lookup reads `tokens`, `users` and `oauth_apps`, while most writes go to
 * other tables. A statement-level trigger on each adds one to the table's row of `TABLE_MARKS`
 * in the writing transaction, so the count moves exactly when a change to the table becomes
 * visible (cascades included: they run as statements on the child table). A lookup remembered
 * under the counts therefore outlives writes to other tables, where the database snapshot (the
 * mark of every other table) moves with every commit.
 *
 * The counts never go back: the admin reset (`../wipe.ts`) and dumps (`../dump.ts`) leave this
 * table out, so a count once read never comes back with other rows behind it.
 */
export const TABLE_MARKS = "table_marks";

/** The counters' table as Kysely knows it: one row per marked table, `n` a bigint (text when read back). */
export type TableMarksTables = {
  [TABLE_MARKS]: { name: string; n: number | string };
};

/** The tables with a counter: rarely written, read by every authenticated request. */
export const MARKED_TABLES = ["tokens", "users", "oauth_apps"] as const;

/** The counts as the request's first statement reads them: `name=n,...` (see `parseCounts`). */
export const COUNTS_SQL = `(select string_agg(name || '=' || n, ',') from ${TABLE_MARKS})`;

export function parseCounts(text: string | null): Map<string, string> {
  const counts = new Map<string, string>();
  for (const pair of (text ?? "").split(",")) {
    const eq = pair.indexOf("=");
    if (eq > 0) counts.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return counts;
}

/**
 * The mark of `tables` for a request that read `counts` and `snapshot` at its start: the
 * tables' counts when every one has a counter, else the snapshot (which moves with any commit).
 * The two kinds cannot be mistaken for one another: counts begin with `#`.
 */
export function markOf(tables: readonly string[], counts: ReadonlyMap<string, string>, snapshot: string): string {
  if (tables.length === 0) return snapshot;
  const values: string[] = [];
  for (const table of tables) {
    const n = counts.get(table);
    if (n === undefined) return snapshot;
    values.push(n);
  }
  return `#${values.join(",")}`;
}
