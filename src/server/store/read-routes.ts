/**
 * Which connection runs a query of the SQLite store on a file: the main one (the single writer,
 * `../sqlite.ts`) or the read worker's (`./read-worker.ts`). A Kysely driver over the main
 * connection's driver:
 *
 * - Everything inside a transaction runs on the main connection, which the transaction holds:
 *   it reads its own uncommitted writes, and the group commit's batches are untouched.
 * - Outside one, a read-only statement runs in the worker when it is long: a count, or a page
 *   that carries its list's total (`counted`, `totalOver`, `countN` in `./store.ts`: the paged
 *   lists of events, logins, invoices, keys, tokens ...), whose cost grows with the list; or any
 *   other read that took `SLOW_MS` on the event loop `SLOW_RUNS` times in a row. Other reads (a
 *   row by its key, the authentication's) stay on the main connection, where they cost less than
 *   the trip to the thread and back.
 * - Writes outside a transaction run on the main connection, as before.
 *
 * A read in the worker sees what was committed when it began, so a write acknowledged before it
 * was asked for (the group commit answers only after its commit) is seen, and a transaction in
 * progress is not. The write marks (`./throughput/write-marks.ts`) note a transaction's tables
 * again when it ends, so nothing the worker read while it was open is remembered past its end.
 */
import { performance } from "node:perf_hooks";
import type BetterSqlite3 from "better-sqlite3";
import type { CompiledQuery, DatabaseConnection, Driver, QueryCompiler, QueryResult, TransactionSettings } from "kysely";
import type { ReadWorker } from "./read-worker";
import { STATEMENT_CACHE_SIZE } from "./throughput";

/**
 * A read that took this long on the event loop, this many times in a row, runs in the worker from
 * then on. Once was too few: one collection or one preemption of a busy machine during a user's
 * lookup by id sent that lookup, made by every request, to the worker for good, where each trip
 * then waited for the thread (two clients listing events doubled another request's latency).
 */
const SLOW_MS = 2;
const SLOW_RUNS = 3;
/** A count over the rows a statement reads: a list's total, or the count itself. */
const COUNTS = /\bcount\s*\(/i;

type Route = "worker" | "read" | "main";

/** The route of each statement, by its text (read from the main connection's prepared statement, once; as many as it keeps prepared). */
export class Routes {
  private readonly known = new Map<string, Route>();
  /** How many times in a row each read that stays has taken `SLOW_MS` (absent: its last run was quick). */
  private readonly slowRuns = new Map<string, number>();

  constructor(private readonly sqlite: BetterSqlite3.Database) {}

  of(sql: string): Route {
    let route = this.known.get(sql);
    if (route === undefined) {
      route = this.classify(sql);
      if (this.known.size >= STATEMENT_CACHE_SIZE) this.known.delete(this.known.keys().next().value!);
      this.known.set(sql, route);
    }
    return route;
  }

  /** A read that stayed took `ms` on the event loop. */
  took(sql: string, ms: number): void {
    if (ms < SLOW_MS) {
      this.slowRuns.delete(sql);
      return;
    }
    if (this.known.get(sql) !== "read") return;
    const runs = (this.slowRuns.get(sql) ?? 0) + 1;
    if (runs < SLOW_RUNS) {
      if (this.slowRuns.size >= STATEMENT_CACHE_SIZE) this.slowRuns.clear();
      this.slowRuns.set(sql, runs);
      return;
    }
    this.slowRuns.delete(sql);
    this.known.set(sql, "worker");
  }

  private classify(sql: string): Route {
    let stmt: BetterSqlite3.Statement;
    try {
      stmt = this.sqlite.prepare(sql);
    } catch {
      // The main connection reports what is wrong with it.
      return "main";
    }
    if (!stmt.reader || !stmt.readonly) return "main";
    return COUNTS.test(sql) ? "worker" : "read";
  }
}

/** What Kysely holds as a connection: the main connection once a transaction began on it, else nothing yet. */
class Lane implements DatabaseConnection {
  main: DatabaseConnection | undefined;

  constructor(private readonly driver: RoutedDriver) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.driver.stream<R>(this, query, chunkSize);
  }
}

export class RoutedDriver implements Driver {
  private readonly routes: Routes;
  private readonly lanes: Lane[] = [];
  /** Until `open`, every query runs on the main connection (the migrations, before the worker may read the schema). */
  private opened = false;

  /** `ended`: a transaction committed or rolled back (the write marks' `settle`). */
  constructor(
    private readonly inner: Driver,
    sqlite: BetterSqlite3.Database,
    private readonly worker: ReadWorker,
    private readonly ended: () => void,
  ) {
    this.routes = new Routes(sqlite);
  }

  /** Lets reads go to the worker (once the schema is migrated). */
  open(): void {
    this.opened = true;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.lanes.pop() ?? new Lane(this);
  }

  async beginTransaction(lane: Lane, settings: TransactionSettings): Promise<void> {
    lane.main = await this.inner.acquireConnection();
    await this.inner.beginTransaction(lane.main, settings);
  }

  async commitTransaction(lane: Lane): Promise<void> {
    try {
      await this.inner.commitTransaction(lane.main!);
    } finally {
      this.ended();
    }
  }

  async rollbackTransaction(lane: Lane): Promise<void> {
    try {
      await this.inner.rollbackTransaction(lane.main!);
    } finally {
      this.ended();
    }
  }

  savepoint(lane: Lane, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    return this.inner.savepoint!(lane.main!, name, compile);
  }

  rollbackToSavepoint(lane: Lane, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    return this.inner.rollbackToSavepoint!(lane.main!, name, compile);
  }

  releaseSavepoint(lane: Lane, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    return this.inner.releaseSavepoint!(lane.main!, name, compile);
  }

  async releaseConnection(lane: Lane): Promise<void> {
    const main = lane.main;
    lane.main = undefined;
    this.lanes.push(lane);
    if (main !== undefined) await this.inner.releaseConnection(main);
  }

  async destroy(): Promise<void> {
    await this.worker.close();
    await this.inner.destroy();
  }

  async execute<R>(lane: Lane, query: CompiledQuery): Promise<QueryResult<R>> {
    if (lane.main !== undefined) return lane.main.executeQuery<R>(query);
    const route = this.opened ? this.routes.of(query.sql) : "main";
    if (route === "worker") {
      const rows = await this.worker.read(query.sql, query.parameters, async () => (await this.onMain(query, false)).rows as Record<string, unknown>[]);
      return { rows: rows as R[] };
    }
    return this.onMain<R>(query, route === "read");
  }

  async *stream<R>(lane: Lane, query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (lane.main !== undefined) return yield* lane.main.streamQuery<R>(query, chunkSize);
    const main = await this.inner.acquireConnection();
    try {
      yield* main.streamQuery<R>(query, chunkSize);
    } finally {
      await this.inner.releaseConnection(main);
    }
  }

  /** `query` on the main connection, between the transactions that hold it; `measured`: a read that may prove slow. */
  private async onMain<R>(query: CompiledQuery, measured: boolean): Promise<QueryResult<R>> {
    const main = await this.inner.acquireConnection();
    try {
      if (!measured) return await main.executeQuery<R>(query);
      // better-sqlite3 runs the statement inside the call; awaiting its answer would add the time
      // of whatever other requests' work runs first.
      const t0 = performance.now();
      const answer = main.executeQuery<R>(query);
      this.routes.took(query.sql, performance.now() - t0);
      return await answer;
    } finally {
      await this.inner.releaseConnection(main);
    }
  }
}
