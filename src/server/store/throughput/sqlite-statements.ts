/**
 * What Kysely's SQLite driver is given instead of the better-sqlite3 handle, for speed (both
 * found by profiling the server under load):
 *
 * - Kysely calls `prepare` for every query it runs, and better-sqlite3 then parses and plans
 *   the SQL again (a tenth of a request's time). The queries' text is the same every time
 *   (values travel as parameters), so statements are kept by their text and reused.
 * - better-sqlite3 builds each result row as an object through V8's C++ API, value by value;
 *   asking for rows as arrays and naming their fields in JavaScript costs a third less (a page
 *   of 100 SSH keys: 140 µs against 100 µs). Rows are the same plain objects as before.
 *
 * Both keep something about a statement between calls (the statement, its column names), and a
 * schema change can alter what a kept `select *` answers. So any DDL (`create`, `alter`, `drop`)
 * forgets everything kept; all of it runs through here (the migrations, at start), never kept.
 *
 * Every statement that may write is announced to `onWrite` (with its SQL) just before it runs,
 * which is how the store knows what its own connection changed (see `../sqlite.ts`).
 */
import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Enough for every distinct query the store runs; the oldest is dropped past it. */
export const STATEMENT_CACHE_SIZE = 500;

const DDL = /^\s*(create|alter|drop)\b/i;

export interface StatementOptions {
  size?: number;
  onWrite?: (sql: string) => void;
}

/** Rows of a reader statement as objects named by its columns (read once, then kept). */
function objectRows(stmt: BetterSqlite3.Statement, before: () => void): SqliteStatement {
  stmt.raw(true);
  let names: string[] | undefined;
  const toObject = (values: unknown[]): Record<string, unknown> => {
    if (names?.length !== values.length) names = stmt.columns().map((c) => c.name);
    const row: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) row[names[i]!] = values[i];
    return row;
  };
  return {
    reader: true,
    all(parameters) {
      before();
      return (stmt.all(parameters) as unknown[][]).map(toObject);
    },
    run(parameters) {
      before();
      return stmt.run(parameters);
    },
    *iterate(parameters) {
      before();
      for (const values of stmt.iterate(parameters) as IterableIterator<unknown[]>) yield toObject(values);
    },
  };
}

/** A statement that tells `onWrite` before each run. */
function announced(stmt: BetterSqlite3.Statement, before: () => void): SqliteStatement {
  return {
    reader: false,
    all(parameters) {
      before();
      return stmt.all(parameters);
    },
    run(parameters) {
      before();
      return stmt.run(parameters);
    },
    iterate(parameters) {
      before();
      return stmt.iterate(parameters);
    },
  };
}

const nothing = () => {};

export function fastStatements(db: BetterSqlite3.Database, options: StatementOptions = {}): SqliteDatabase {
  const size = options.size ?? STATEMENT_CACHE_SIZE;
  const onWrite = options.onWrite ?? nothing;
  const kept = new Map<string, SqliteStatement>();
  const wrap = (sql: string, stmt: BetterSqlite3.Statement): SqliteStatement => {
    const before = stmt.readonly ? nothing : () => onWrite(sql);
    if (stmt.reader) return objectRows(stmt, before);
    return stmt.readonly ? stmt : announced(stmt, before);
  };
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      if (DDL.test(sql)) {
        kept.clear();
        return wrap(sql, db.prepare(sql));
      }
      let stmt = kept.get(sql);
      if (stmt === undefined) {
        stmt = wrap(sql, db.prepare(sql));
        if (kept.size >= size) kept.delete(kept.keys().next().value!);
        kept.set(sql, stmt);
      }
      return stmt;
    },
  };
}
