/**
 * The store over Kysely, for any dialect whose Kysely instance is handed in: transactions, the
 * ambient transaction of an async context, dumps and wipes. The repositories are the areas'
 * (each area's `store.ts`), built by `repos` over this store's handle: once for the root, and
 * again over each transaction.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { sql, type Kysely } from "kysely";
import type { IdBlocks } from "./throughput";
import { wipeDatabase } from "./wipe";
import { changeMark, dumpDatabase, tablesOf, type Dump, type TableColumns } from "./dump";
import { writeRefusal, type Handle, type StoreCore, type StoreOf, type WriteCheck } from "./store";

/** The database as the engine sees it: no table is queried by name here. */
export type AnyDb = Kysely<unknown>;

/** Builds the repositories over a handle (`../areas/index.ts` composes every area's). */
export type ReposOf<R> = (handle: Handle<unknown>) => R;

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The transaction open in the current async context, with the root handle it belongs to. */
const openTransaction = new AsyncLocalStorage<{ root: AnyDb; trx: AnyDb }>();

/** True while `fn` of a `transaction()` on `root` is running in this async context. */
export const inTransaction = (root: AnyDb): boolean => openTransaction.getStore()?.root === root;

/** Runs `fn` with `trx` as the open transaction of `root` (see `ambient`). */
export const withOpenTransaction = <T>(root: AnyDb, trx: AnyDb, fn: () => Promise<T>): Promise<T> => openTransaction.run({ root, trx }, fn);

/**
 * The root handle as the repositories hold it: while a transaction is open in the current
 * async context, every query goes to that transaction, even through the outer store. On
 * SQLite (one connection) a query on the outer handle would otherwise wait forever for the
 * transaction that holds the connection; on Postgres it would run outside the transaction.
 * So domain code cannot deadlock or escape a transaction by reaching for `deps.store`.
 */
function ambient(root: AnyDb): AnyDb {
  return new Proxy(root, {
    get(target, prop) {
      const open = openTransaction.getStore();
      const handle = open && open.root === target ? open.trx : target;
      const value: unknown = Reflect.get(handle, prop, handle);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(handle) : value;
    },
  });
}

export class KyselyStore<R extends object> implements StoreCore<R> {
  /**
   * The store with its repositories, as the domain sees it. `onClose` releases what the opener
   * acquired (the driver's connection or pool).
   */
  static open<R extends object>(db: AnyDb, repos: ReposOf<R>, onClose?: () => Promise<void>, ids?: IdBlocks): StoreOf<R> {
    return new KyselyStore(db, repos, onClose, ids).asStore();
  }

  /** `ids`: where new rows' ids are reserved ahead (Postgres, ./throughput/id-blocks.ts); none, the database assigns them at insert. */
  protected constructor(
    private readonly db: AnyDb,
    protected readonly repos: ReposOf<R>,
    private readonly onClose: () => Promise<void> = () => db.destroy(),
    protected readonly ids?: IdBlocks,
  ) {
    const handleDb = db.isTransaction ? db : ambient(db);
    const handle: Handle<unknown> = {
      db: handleDb,
      tablesMark: (tables) => this.tablesMark(tables),
      // On the handle's own connection: inside a transaction, the transaction's.
      reserveId: (table) => ids?.take(table, handleDb),
    };
    // The repositories and the store's own operations on one object: `tx.sshKeys`, `tx.transaction`.
    this.#withRepos = Object.assign(this, repos(handle));
  }

  /** This object once the constructor gave it the repositories, typed as what it then is. */
  readonly #withRepos: StoreOf<R>;

  /** This store with its repositories. */
  asStore(): StoreOf<R> {
    return this.#withRepos;
  }

  private tables: Promise<TableColumns[]> | undefined;

  /** Every row of every table (see `./dump.ts`); the table list is read once, after migrations. */
  dump(): Promise<Dump> {
    this.tables ??= tablesOf(this.db);
    return this.tables.then((tables) => dumpDatabase(this.db, tables));
  }

  /**
   * A write that changes no row: it needs the write access a real one does (SQLite's write lock on a file it can
   * write, a Postgres transaction that is not read-only), so it fails as a real write would on a store that cannot.
   */
  async writable(): Promise<WriteCheck> {
    try {
      const db = ambient(this.db);
      await this.transaction(() => sql`update kysely_migration set name = name where 1 = 0`.execute(db));
      return { writable: true };
    } catch (err) {
      const reason = writeRefusal(err);
      if (reason === undefined) throw err;
      return { writable: false, reason, problem: `the store ${reason === "read-only" ? "is read-only" : "is out of space"} (${errorText(err)})` };
    }
  }

  /** Changes whenever a transaction may have written (see `./dump.ts`). */
  changeMark(): Promise<string> {
    return changeMark(this.db);
  }

  /** Not known in general: several processes may share the database (see `./sqlite.ts`). */
  protected tablesMark(_tables: readonly string[]): string | undefined {
    return undefined;
  }

  /** Empties every table (see `./wipe.ts`); not inside a transaction. */
  wipe(): Promise<void> {
    return wipeDatabase(this.db);
  }

  async transaction<T>(fn: (store: StoreOf<R>) => Promise<T>): Promise<T> {
    if (this.db.isTransaction || inTransaction(this.db)) return fn(this.asStore());
    return this.db.transaction().execute((trx) => withOpenTransaction(this.db, trx, () => fn(this.over(trx))));
  }

  private readonly overTransactions = new WeakMap<AnyDb, StoreOf<R>>();

  /**
   * This store's repositories over an open transaction `trx`, built once per `trx`: on SQLite
   * the transactions of one group commit share it (./throughput/group-commit.ts), and building every
   * area's repositories for each was a twentieth of a POST's CPU time. They hold nothing but
   * the handle, so one transaction leaves nothing in them for the next.
   */
  protected over(trx: AnyDb): StoreOf<R> {
    let store = this.overTransactions.get(trx);
    if (store === undefined) this.overTransactions.set(trx, (store = KyselyStore.open(trx, this.repos, async () => {}, this.ids)));
    return store;
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
