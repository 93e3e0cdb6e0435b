/**
 * Kysely's SQLite driver calls `prepare` for every query it runs, and better-sqlite3 then parses
 * and plans the SQL again (a tenth of a request's time, profiled). The hot queries' text is
 * the same every time (values travel as parameters), so statements are kept by their text and
 * reused. SQLite re-prepares a kept statement by itself if the schema changes under it.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Enough for every distinct query the store runs; the oldest is dropped past it. */
export const STATEMENT_CACHE_SIZE = 500;

export function reusingStatements(db: BetterSqlite3.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const kept = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = kept.get(sql);
      if (stmt === undefined) {
        stmt = db.prepare(sql);
        if (kept.size >= size) kept.delete(kept.keys().next().value!);
        kept.set(sql, stmt);
      }
      return stmt;
    },
  };
}
