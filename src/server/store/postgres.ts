/**
 * The shared store: PostgreSQL through `pg`'s Pool and Kysely's `PostgresDialect`, the same
 * migrations (flavor `postgres`) and the same `KyselyStore` queries as SQLite.
 *
 * What differs from SQLite, and why it is safe with several `mgmt serve` processes on one
 * database:
 * - Migrations run under a session advisory lock (`MIGRATION_LOCK`), so two servers starting
 *   at once migrate one after the other; the second finds nothing left to do.
 * - Ids are identity columns (`withId`), drawn from their sequence: unique across processes.
 *   Some tables' ids are drawn ahead in blocks (./throughput/id-blocks.ts), so their inserts need no
 *   answer before the commit.
 * - SQLite runs one transaction at a time; Postgres runs them side by side. So every
 *   `transaction()` here is SERIALIZABLE, and is run again from the start when Postgres
 *   reports a serialization failure or a deadlock. Those asked for while one runs share one
 *   transaction and one commit, each in a savepoint (./throughput/pg-group-commit.ts).
 *   A read-modify-write in the domain (read a row, check a rule, write) therefore behaves as
 *   it does on SQLite: as if the transactions ran one after the other, never a lost update.
 *   A transaction body must not have side effects outside the store (none do: the SMS outbox
 *   is written after the transaction).
 * - Writes outside a transaction are single statements (insert, delete, update ... returning),
 *   atomic on their own.
 * - What was read may be remembered between requests (an authenticated token, a page's
 *   answer) only while its marks stay the same: the database's snapshot, and for the tables a
 *   token's lookup reads, their change counters (./throughput/table-marks.ts). Each request reads them
 *   first (`requestMarks`, one short statement), so a commit by any server, a revocation say,
 *   is seen by the very next request everywhere.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { KyselyStore, inTransaction, withOpenTransaction, type AnyDb, type ReposOf } from "./kysely-store";
import { migrateToLatest } from "./migrations";
import { IdBlocks, NamedStatements, PostgresGroupCommit, COUNTS_SQL, markOf, parseCounts } from "./throughput";
import type { MarksRunner, StoreOf } from "./store";

/** The key of the advisory lock held while migrating (any constant; "mgmt" in ASCII). */
export const MIGRATION_LOCK = 0x6d676d74;
/** Attempts of one transaction before a serialization failure is given up on. */
export const TRANSACTION_ATTEMPTS = 40;

/** serialization_failure, deadlock_detected: the transaction may succeed when run again. */
const RETRYABLE = new Set(["40001", "40P01"]);

export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && RETRYABLE.has(code);
}

/** A `postgres://` or `postgresql://` connection string (what `--db` and `MGMT_DATABASE_URL` accept). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

export interface PostgresStoreOptions {
  /** Largest number of connections of this process (default 10). */
  maxConnections?: number;
  /** Told about errors of idle pooled connections (the server restarting, say). Default: ignored; the pool replaces them. */
  onPoolError?: (err: Error) => void;
}

/**
 * The text of the snapshot a new statement would see: `xmin:xmax:xip,...`. Two equal texts
 * see exactly the same commits: a transaction that completed between them either had an id
 * below `xmax`, and so was listed in progress in the first (and not in the second), or moved
 * `xmax` past it. Commits only accumulate, so whatever was read after the first and before
 * the second saw that same data. Ids are 64-bit (`xid8`): a text never comes back. Read with
 * the change counters of the tables that have them (./throughput/table-marks.ts), in one statement.
 */
const MARKS = CompiledQuery.raw(`select pg_current_snapshot()::text as snapshot, ${COUNTS_SQL} as counts`);

/** What a request read first (see `requestMarks`). */
interface RequestMarks {
  snapshot: string;
  counts: ReadonlyMap<string, string>;
}

class PostgresStore<R extends object> extends KyselyStore<R> {
  /** The marks the running request started with (see `requestMarks`). */
  private readonly marks = new AsyncLocalStorage<RequestMarks>();
  private readonly commits: PostgresGroupCommit;

  constructor(
    private readonly pgDb: AnyDb,
    repos: ReposOf<R>,
  ) {
    super(pgDb, repos, () => pgDb.destroy(), new IdBlocks(pgDb));
    this.commits = new PostgresGroupCommit(
      pgDb,
      (work) => this.alone(work),
      (err) => this.ids!.collided(err),
    );
  }

  /** The sequences restart: ids reserved before would be handed out again (./throughput/id-blocks.ts). */
  override async wipe(): Promise<void> {
    this.ids!.forget();
    try {
      await super.wipe();
    } finally {
      this.ids!.forget();
    }
  }

  /** The read that requests asking now will share, until it is sent (see `requestMarks`). */
  private nextRead: Promise<RequestMarks | undefined> | undefined;

  /**
   * One statement before the request's own: the snapshot's text is the mark of every table
   * without a change counter, the counters those of the others (see `markOf`). Whatever the
   * request then reads is at least as new, so it may be remembered under those marks.
   *
   * The requests of one turn of the event loop share one read, sent at the turn's end: it is
   * sent after each of them arrived, so it sees every commit acknowledged before any of them
   * (a revocation, say), just as a read of its own would. A request arriving once the read is
   * sent waits for the next. If the marks cannot be read the request runs without them: it
   * reads everything, and its queries meet the same failure.
   */
  requestMarks(): Promise<MarksRunner> {
    this.nextRead ??= new Promise((resolve) =>
      setImmediate(() => {
        this.nextRead = undefined;
        void this.readMarks().then(resolve);
      }),
    );
    return this.nextRead.then((marks): MarksRunner => (marks === undefined ? (fn) => this.marks.exit(fn) : (fn) => this.marks.run(marks, fn)));
  }

  private async readMarks(): Promise<RequestMarks | undefined> {
    try {
      const { rows } = await this.pgDb.executeQuery<{ snapshot: string; counts: string | null }>(MARKS);
      return { snapshot: rows[0]!.snapshot, counts: parseCounts(rows[0]!.counts) };
    } catch {
      return undefined;
    }
  }

  /** From the request's marks (see `requestMarks`); none inside a transaction, which sees its own writes. */
  protected override tablesMark(tables: readonly string[]): string | undefined {
    if (inTransaction(this.pgDb)) return undefined;
    const marks = this.marks.getStore();
    return marks === undefined ? undefined : markOf(tables, marks.counts, marks.snapshot);
  }

  /** Joins the next group (./throughput/pg-group-commit.ts); inside a transaction, runs in it. */
  override async transaction<T>(fn: (store: StoreOf<R>) => Promise<T>): Promise<T> {
    if (this.pgDb.isTransaction || inTransaction(this.pgDb)) return fn(this.asStore());
    const work = (trx: AnyDb) => withOpenTransaction(this.pgDb, trx, () => fn(this.over(trx)));
    return this.commits.run(work);
  }

  /** Runs `work` in a transaction of its own, again from the start after a serialization failure. */
  private async alone<T>(work: (trx: AnyDb) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pgDb.transaction().setIsolationLevel("serializable").execute(work);
      } catch (err) {
        // A reserved id that met its row after an admin reset (./throughput/id-blocks.ts) is taken afresh.
        if (!(isRetryable(err) || this.ids!.collided(err)) || attempt >= TRANSACTION_ATTEMPTS) throw err;
        // A short, growing, random pause so that the transactions that collided spread out.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 * attempt, 20)));
      }
    }
  }
}

/** Opens (migrating when needed) the Postgres store at `connectionString`, with the repositories `repos` builds. */
export async function openPostgresStore<R extends object>(
  connectionString: string,
  repos: ReposOf<R>,
  options: PostgresStoreOptions = {},
): Promise<StoreOf<R>> {
  const pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 10, application_name: "mgmt serve" });
  // Without a listener, an idle connection that breaks would crash the process.
  pool.on("error", (err) => options.onPoolError?.(err));
  const named = new NamedStatements();
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: named.pool(pool) }) });
  try {
    await migrateLocked(pool, db);
    named.startNaming();
    return new PostgresStore(db, repos).asStore();
  } catch (err) {
    await db.destroy().catch(() => {});
    throw err;
  }
}

/** Migrates while holding `MIGRATION_LOCK` on a connection of its own. */
async function migrateLocked(pool: pg.Pool, db: AnyDb): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await migrateToLatest(db, "postgres");
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch((err: Error) => {
        broken = err;
      });
    }
  } finally {
    // A connection whose unlock failed may still hold the lock: close it rather than reuse it.
    client.release(broken);
  }
}

/** Creates a database on the cluster of `adminUrl` (tests and benchmarks: one per server). */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: adminUrl, max: 1 }) }) });
  try {
    await sql`create database ${sql.id(name)}`.execute(db);
  } finally {
    await db.destroy();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a database made by `createDatabase`, closing what is still connected to it. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: adminUrl, max: 1 }) }) });
  try {
    await sql`drop database if exists ${sql.id(name)} with (force)`.execute(db);
  } finally {
    await db.destroy();
  }
}
