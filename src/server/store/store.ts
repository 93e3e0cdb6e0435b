/**
 * The store's kernel: what every area's repositories are built on and what the domain sees of
 * a store besides them. An area's repositories (`src/server/areas/<area>/store.ts`) are classes
 * over a `Handle` to the tables they use; `StoreOf<R>` is those repositories plus transactions.
 * The store is composed from every area's repositories in one place (`../areas/index.ts`).
 */
import { sql, type ExpressionBuilder, type Kysely } from "kysely";

/**
 * The largest id any store holds: Postgres ids are `integer` (32-bit), and SQLite, whose are
 * wider, never assigns one past it either. A larger id names nothing, on both stores alike.
 */
export const MAX_ID = 2_147_483_647;

/** Whether `id` can name a row: a positive integer within `MAX_ID`. */
export const isStorableId = (id: number): boolean => Number.isInteger(id) && id >= 1 && id <= MAX_ID;

export interface Slice {
  limit: number;
  offset: number;
}

/** A slice and the size of the whole collection, as of one moment. */
export interface Counted<T> {
  rows: T[];
  total: number;
}

/** What an area's repositories are built over: the database (or the open transaction) and its change marks. */
export interface Handle<DB> {
  readonly db: Kysely<DB>;
  /**
   * A value that changes whenever any of `tables` may have changed, by this process or another
   * (directly or by a cascade); undefined when the store cannot tell, or inside a transaction,
   * so nothing read from them may be remembered between requests. What was read while the
   * mark stays the same is still true.
   */
  tablesMark(tables: ReadonlyArray<keyof DB & string>): string | undefined;
  /**
   * An id for a new row of `table` (an identity column `id`) that no other insert, here or on
   * another server, will take; undefined when the store assigns ids at insert (SQLite). See
   * `./throughput/id-blocks.ts` and `preparedInsertReserved`.
   */
  reserveId(table: keyof DB & string): number | Promise<number> | undefined;
}

/** Whether the store can take a write now (see `StoreCore.writable`); `problem` says why not, for people. */
export type WriteCheck = { writable: true } | { writable: false; reason: "read-only" | "no space"; problem: string };

/** A write refused by the store itself, by the drivers' codes (SQLite's, Postgres's SQLSTATE); undefined for any other error. */
export function writeRefusal(err: unknown): "read-only" | "no space" | undefined {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  if (code === "SQLITE_FULL" || code === "53100") return "no space";
  if (code === "SQLITE_READONLY" || (typeof code === "string" && code.startsWith("SQLITE_READONLY_")) || code === "25006") return "read-only";
  return undefined;
}

/** A store as the domain sees it: repositories `R` and the store's own operations. */
export interface StoreCore<R> {
  /** Runs `fn` atomically; inside a transaction, runs it in that transaction. */
  transaction<T>(fn: (store: StoreOf<R>) => Promise<T>): Promise<T>;
  /** Empties every table and restarts ids (the admin namespace's reset). */
  wipe(): Promise<void>;
  /** Every row of every table, comparable between two states (tests that check nothing changed). */
  dump(): Promise<Record<string, string[]>>;
  /** A value that changes whenever a transaction may have written, so that equal marks need no dumps compared. */
  changeMark(): Promise<string>;
  /**
   * For a store that other processes write to and that cannot observe their commits as they
   * happen (Postgres): reads, in one statement, what `Handle.tablesMark` compares, and answers
   * a runner that calls a function with those marks in force for everything it starts (a
   * request). Without it (SQLite), marks are read when asked.
   */
  requestMarks?(): Promise<MarksRunner>;
  /**
   * Whether a write would be taken now: a transaction that asks for write access and changes no
   * row (so nothing is stored and no dump changes), and on SQLite the room left for the file.
   */
  writable(): Promise<WriteCheck>;
  close(): Promise<void>;
}

/** Calls `fn` with the marks a store read in force (see `StoreCore.requestMarks`). */
export type MarksRunner = (fn: () => void) => void;

export type StoreOf<R> = R & StoreCore<R>;

/** Counts come back as numbers from SQLite and as strings (bigint) from Postgres. */
export const toCount = (value: string | number | bigint | null | undefined): number => Number(value ?? 0);

/**
 * A slice read with its rows each carrying the total (`count(*) over ()` or a subquery), as
 * one statement: one snapshot, no transaction. An empty slice carries no total; past the end,
 * `count` says so, and if rows arrived in between the slice is read again, so the answer is
 * still of one moment.
 */
export async function counted<Row extends { total: unknown }, T>(
  slice: Slice,
  read: () => Promise<Row[]>,
  count: () => Promise<{ n: string | number | bigint } | undefined>,
  record: (row: Row) => T,
): Promise<Counted<T>> {
  for (;;) {
    const rows = await read();
    if (rows.length > 0) return { rows: rows.map(record), total: toCount(rows[0]!.total as number) };
    const total = toCount((await count())?.n);
    if (total <= slice.offset) return { rows: [], total };
  }
}

/** The size of the whole filtered collection on every row of a slice (see `counted`). */
export const totalOver = () => sql<number | string>`count(*) over ()`.as("total");

/** `select count(*) as n`: `query.select(countN).executeTakeFirst()`, read with `toCount`. */
export const countN = <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>) => eb.fn.countAll<number | string>().as("n");

/** What every area's repository holds: the handle and its database. */
export abstract class Repository<DB> {
  protected readonly db: Kysely<DB>;

  constructor(protected readonly handle: Handle<DB>) {
    this.db = handle.db;
  }
}
