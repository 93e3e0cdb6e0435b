/**
 * Ids reserved ahead, in blocks, for the Postgres store (`Handle.reserveId`). An insert that
 * asks the database for its new id (`returning id`) has to wait for the answer, a round trip
 * in the middle of its transaction; an insert that brings its id needs no answer, so in a
 * transaction it is held back and goes out with the commit (`LATER`, ./prepared.ts), and a
 * group's inserts share one round trip with their commit (./pg-group-commit.ts).
 *
 * The ids come from the column's own identity sequence, `BLOCK` at a time, and this process
 * hands them out one by one:
 * - Unique across processes and restarts: `nextval` never answers the same value twice, even
 *   to a transaction that rolls back, and rows inserted without an id (fixtures, other paths)
 *   draw from the same sequence. Ids a process held when it stopped are never used (gaps).
 * - Only the admin reset restarts a sequence (`TRUNCATE ... RESTART IDENTITY`): this process
 *   forgets its blocks then (`forget`), and another server's stale id meets the row that took
 *   it as a primary-key violation (`collided`), upon which its blocks are forgotten and the
 *   transaction runs again with a fresh id.
 * - Order: within one process ids ascend in the order they were asked for, as before; between
 *   servers an object created later may have the lower id (each server draws from its own
 *   block). Lists ordered by id then show it before older objects of the other server; a
 *   client paging through meanwhile may see one object twice, never miss one, which deletions
 *   can already cause the other way round (docs/server.md). Tables whose ids must follow
 *   creation order (the event feed: "seen up to id") keep ids assigned at insert.
 *
 * A block is refilled in the background once it runs low, on a pooled connection nobody waits
 * for; a transaction that finds its block empty reads a block on its own connection (never on
 * another: with every pooled connection held by a transaction waiting on it, none would come).
 */
import { CompiledQuery, type Kysely } from "kysely";

/** Ids read at once. A server that stops loses at most this many per table. */
export const BLOCK = 32;
/** A background refill starts when fewer than this many are left. */
const LOW = BLOCK / 2;

const blockSql = (table: string, n: number) =>
  // The table name is one of the repositories' own (a fixed identifier), passed as a value.
  CompiledQuery.raw("select nextval(pg_get_serial_sequence($1, 'id'))::int as id from generate_series(1, $2::int)", [table, n]);

/** The primary-key violation a stale reserved id meets (see the module comment). */
interface PgError {
  code?: unknown;
  table?: unknown;
  constraint?: unknown;
}

export class IdBlocks {
  /** Ids of each table not yet handed out, ascending. */
  private readonly free = new Map<string, number[]>();
  /** Tables this has handed out ids for. */
  private readonly tables = new Set<string>();
  /** The last id handed out of each table: a block read meanwhile keeps only those above it. */
  private readonly last = new Map<string, number>();
  /** Tables with a background refill on its way. */
  private readonly refilling = new Set<string>();
  /** Bumped by `forget`: a refill read before it is dropped. */
  private epoch = 0;

  /** `root`: the pool's handle, for the background refills. */
  constructor(private readonly root: Kysely<unknown>) {}

  /** An id for a new row of `table`, reading a block on `db` (the caller's connection) only when none is left. */
  take(table: string, db: Kysely<unknown>): number | Promise<number> {
    this.tables.add(table);
    const free = this.free.get(table);
    const id = free?.shift();
    if (id === undefined) return this.read(db, table).then(() => this.take(table, db));
    this.last.set(table, id);
    if (free!.length < LOW) this.refill(table);
    return id;
  }

  /** Drops every block held (the admin reset restarted the sequences). */
  forget(): void {
    this.free.clear();
    this.last.clear();
    this.epoch++;
  }

  /**
   * Whether `err` is a primary-key violation of a table this hands out ids for: a reserved id
   * another server held across a reset. Forgets the blocks, so the transaction's next run
   * takes a fresh id.
   */
  collided(err: unknown): boolean {
    const { code, table, constraint } = (err ?? {}) as PgError;
    if (code !== "23505" || typeof table !== "string" || !this.tables.has(table) || constraint !== `${table}_pkey`) return false;
    this.forget();
    return true;
  }

  private refill(table: string): void {
    if (this.refilling.has(table)) return;
    this.refilling.add(table);
    // A failed refill is left: the next take that finds the block empty reads one itself.
    void this.read(this.root, table)
      .catch(() => {})
      .finally(() => this.refilling.delete(table));
  }

  private async read(db: Kysely<unknown>, table: string): Promise<void> {
    const epoch = this.epoch;
    const { rows } = await db.executeQuery<{ id: number }>(blockSql(table, BLOCK));
    if (epoch !== this.epoch) return;
    const free = this.free.get(table) ?? [];
    // Two blocks read at once may come back in either order: ids below one handed out are
    // left unused, so this process hands out its ids in ascending order.
    const last = this.last.get(table) ?? 0;
    for (const { id } of rows) if (id > last) free.push(id);
    free.sort((a, b) => a - b);
    this.free.set(table, free);
  }
}
