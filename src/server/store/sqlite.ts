/** The embedded store: SQLite through better-sqlite3, a file or `:memory:`. */
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { KyselyStore } from "./kysely-store";
import { migrateToLatest } from "./migrations";
import { fastStatements } from "./sqlite-statements";
import type { Store } from "./store";
import type { Database } from "./tables";

export async function openSqliteStore(path: string): Promise<Store> {
  const sqlite = new BetterSqlite3(path);
  try {
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    if (path !== ":memory:" && path !== "") sqlite.pragma("journal_mode = WAL");
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: fastStatements(sqlite) }) });
    await migrateToLatest(db as Kysely<unknown>, "sqlite");
    return new KyselyStore(db);
  } catch (err) {
    sqlite.close();
    throw err;
  }
}
