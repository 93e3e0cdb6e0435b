/** The embedded store: SQLite through better-sqlite3, a file or `:memory:`. */
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { KyselyStore, inTransaction } from "./kysely-store";
import { migrateToLatest } from "./migrations";
import { fastStatements } from "./sqlite-statements";
import type { Store, TableName } from "./store";
import type { Database } from "./tables";
import { WriteMarks, cascadesOf } from "./write-marks";

class SqliteStore extends KyselyStore {
  private readonly dataVersionQuery: BetterSqlite3.Statement;
  /** `data_version` as read in this turn of the event loop (see `dataVersion`). */
  private dataVersionNow: unknown;

  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    private readonly root: Kysely<Database>,
    private readonly writes: WriteMarks,
  ) {
    super(root);
    this.dataVersionQuery = sqlite.prepare("pragma data_version").pluck();
  }

  /**
   * Our own writes are counted as they run (see `./write-marks.ts`); another connection's
   * commits (another process on the same file) move SQLite's `data_version`. Neither can be
   * asked inside a transaction: the statement would read the transaction's snapshot, or start it.
   */
  override tablesMark(tables: readonly TableName[]): string | undefined {
    if (this.sqlite.inTransaction || inTransaction(this.root)) return undefined;
    return `${this.writes.mark(tables)}:${String(this.dataVersion())}`;
  }

  /**
   * Reading `data_version` takes file locks (two fcntl calls and a stat, profiled at a tenth of
   * a cached GET), and a request asks for it twice (authentication, then its answer). One read
   * serves the rest of the event loop's turn: a commit elsewhere after it is as if it came
   * after this turn's requests; the next turn reads again.
   */
  private dataVersion(): unknown {
    if (this.dataVersionNow === undefined) {
      this.dataVersionNow = this.dataVersionQuery.get();
      setImmediate(() => {
        this.dataVersionNow = undefined;
      });
    }
    return this.dataVersionNow;
  }
}

export async function openSqliteStore(path: string): Promise<Store> {
  const sqlite = new BetterSqlite3(path);
  try {
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    if (path !== ":memory:" && path !== "") sqlite.pragma("journal_mode = WAL");
    const writes = new WriteMarks();
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: fastStatements(sqlite, { onWrite: (sql) => writes.note(sql) }) }) });
    await migrateToLatest(db as Kysely<unknown>, "sqlite");
    writes.useSchema(cascadesOf(sqlite));
    return new SqliteStore(sqlite, db, writes);
  } catch (err) {
    sqlite.close();
    throw err;
  }
}
