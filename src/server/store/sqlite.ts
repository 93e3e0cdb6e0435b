/** The embedded store: SQLite through better-sqlite3, a file or `:memory:`. */
import { statfsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { CompiledQuery, Kysely, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from "kysely";
import { GroupCommit, fastStatements, WriteMarks, cascadesOf } from "./throughput";
import { KyselyStore, inTransaction, withOpenTransaction, type AnyDb, type ReposOf } from "./kysely-store";
import { migrateToLatest } from "./migrations";
import { RoutedDriver } from "./read-routes";
import { ReadWorker } from "./read-worker";
import type { StoreOf, WriteCheck } from "./store";

/**
 * Transactions begin `immediate`: they take SQLite's write lock at once, so while one is open
 * on our connection no other process can commit (see `SqliteStore.tablesMark`), and a
 * transaction that reads before it writes cannot fail at its first write because another
 * process wrote in between.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  /** `over`: the driver Kysely is given over the main connection's (the read routes, on a file). */
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly over: (driver: Driver) => Driver = (driver) => driver,
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    return this.over(
      new (class extends SqliteDriver {
        override async beginTransaction(connection: DatabaseConnection): Promise<void> {
          await connection.executeQuery(CompiledQuery.raw("begin immediate"));
        }
      })(this.settings),
    );
  }
}

/** Less room than this on the file's disk is reported as no space: a write's WAL frames and pages would not fit for long. */
const MIN_FREE_BYTES = 1024 * 1024;

class SqliteStore<R extends object> extends KyselyStore<R> {
  private readonly dataVersionQuery: BetterSqlite3.Statement;
  private readonly sqlite: BetterSqlite3.Database;
  /** `data_version` as read in this turn of the event loop (see `dataVersion`). */
  private dataVersionNow: unknown;
  private readonly commits: GroupCommit;

  constructor(
    sqlite: BetterSqlite3.Database,
    private readonly root: AnyDb,
    private readonly writes: WriteMarks,
    repos: ReposOf<R>,
    /** The file, or undefined for `:memory:`. */
    private readonly file: string | undefined,
  ) {
    super(root, repos);
    this.dataVersionQuery = sqlite.prepare("pragma data_version").pluck();
    this.sqlite = sqlite;
    const savepoints = new Map<string, BetterSqlite3.Statement>();
    this.commits = new GroupCommit(root, (sql) => {
      let stmt = savepoints.get(sql);
      if (stmt === undefined) savepoints.set(sql, (stmt = sqlite.prepare(sql)));
      stmt.run();
    });
  }

  /** Joins the turn's batch (see `./throughput/group-commit.ts`); inside a transaction, runs in it. */
  override async transaction<T>(fn: (store: StoreOf<R>) => Promise<T>): Promise<T> {
    if (inTransaction(this.root)) return fn(this.asStore());
    return this.commits.run((trx) => withOpenTransaction(this.root, trx, () => fn(this.over(trx))));
  }

  /**
   * As any store's check (write access), and the room to grow: a file at its page limit with no free page, or a disk
   * with less than `MIN_FREE_BYTES` left, cannot take the next write that needs a page.
   */
  override async writable(): Promise<WriteCheck> {
    const access = await super.writable();
    if (!access.writable) return access;
    const pragma = (name: string) => Number(this.sqlite.pragma(name, { simple: true }));
    if (pragma("page_count") >= pragma("max_page_count") && pragma("freelist_count") === 0)
      return { writable: false, reason: "no space", problem: "the store is out of space (the file is at its page limit)" };
    if (this.file !== undefined) {
      const fs = statfsSync(dirname(this.file));
      const free = fs.bavail * fs.bsize;
      if (free < MIN_FREE_BYTES) return { writable: false, reason: "no space", problem: `the store is out of space (${free} bytes free on its disk)` };
    }
    return access;
  }

  /**
   * Our own writes are counted as they run (see `./throughput/write-marks.ts`); another connection's
   * commits (another process on the same file) move SQLite's `data_version`, and cannot happen
   * while a transaction of ours is open (they begin `immediate`), so the mark holds then too.
   * Code running inside a transaction gets none: it may read its own uncommitted writes.
   */
  protected override tablesMark(tables: readonly string[]): string | undefined {
    if (inTransaction(this.root)) return undefined;
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

/**
 * better-sqlite3, loaded when a store opens rather than with the module: its addon is compiled when it
 * installs, and of all the `mgmt` commands only `mgmt serve` needs it, so the provider package leaves it
 * an optional peer (`mgmt init` and the report commands install nothing native). Missing, it is named.
 */
function betterSqlite3(): typeof BetterSqlite3 {
  try {
    return require("better-sqlite3") as typeof BetterSqlite3;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code !== "MODULE_NOT_FOUND" || !/['"]better-sqlite3['"]/.test(e.message)) throw err;
    throw new Error(
      "the SQLite store needs the better-sqlite3 package, which is not installed: install it beside @mgmt/provider " +
        "(npm install --save-dev better-sqlite3; its native addon builds when it installs), or give --db postgres://... to keep the data in PostgreSQL",
      { cause: err },
    );
  }
}

/**
 * Opens (creating and migrating when needed) the SQLite store at `path`, with the repositories `repos` builds.
 *
 * On a file, long reads outside a transaction run on a second, read-only connection in a thread of their own
 * (`./read-routes.ts`, `./read-worker.ts`), so they hold no other request. `:memory:` has no second connection (an
 * in-memory database is its connection's alone): every query runs on the event loop, as `mgmt serve --ephemeral`'s.
 */
export async function openSqliteStore<R extends object>(path: string, repos: ReposOf<R>): Promise<StoreOf<R>> {
  const Database = betterSqlite3();
  const sqlite = new Database(path);
  const file = path === ":memory:" || path === "" ? undefined : resolve(path);
  try {
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    if (file !== undefined) sqlite.pragma("journal_mode = WAL");
    const writes = new WriteMarks();
    let routes: RoutedDriver | undefined;
    const over =
      file === undefined
        ? undefined
        : (driver: Driver) => (routes = new RoutedDriver(driver, sqlite, new ReadWorker(file, require.resolve("better-sqlite3")), () => writes.settle()));
    const database = fastStatements(sqlite, { onWrite: (sql) => writes.note(sql) });
    const db = new Kysely<unknown>({ dialect: new ImmediateSqliteDialect({ database }, over) });
    await migrateToLatest(db, "sqlite");
    writes.useSchema(cascadesOf(sqlite));
    routes?.open();
    return new SqliteStore(sqlite, db, writes, repos, file).asStore();
  } catch (err) {
    sqlite.close();
    throw err;
  }
}
