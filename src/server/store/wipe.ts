/**
 * Empties every table of the store (not the migration bookkeeping), in one transaction, and
 * restarts id sequences: what the admin namespace's reset needs before a fresh bootstrap.
 * SQLite: foreign keys are checked at commit (`defer_foreign_keys`), so table order does not
 * matter. Postgres: one `TRUNCATE ... RESTART IDENTITY CASCADE`. The change counters stay
 * (./throughput/table-marks.ts): the truncation moves them, as any write does.
 */
import { PostgresAdapter, sql, type Kysely } from "kysely";
import { TABLE_MARKS } from "./throughput";

export async function wipeDatabase(db: Kysely<unknown>): Promise<void> {
  const tables = (await db.introspection.getTables()).filter((t) => !t.isView && t.name !== TABLE_MARKS).map((t) => t.name);
  if (tables.length === 0) return;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.transaction().execute(async (trx) => {
    if (postgres) {
      await sql`TRUNCATE TABLE ${sql.join(tables.map((t) => sql.table(t)))} RESTART IDENTITY CASCADE`.execute(trx);
      return;
    }
    await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
    for (const table of tables) await sql`DELETE FROM ${sql.table(table)}`.execute(trx);
    const seq = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = 'sqlite_sequence'`.execute(trx);
    if (Number(seq.rows[0]?.n ?? 0) > 0) await sql`DELETE FROM sqlite_sequence`.execute(trx);
  });
}
