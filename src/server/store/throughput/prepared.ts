/**
 * Queries built and compiled once. Kysely builds the operation tree of a query and compiles it
 * to SQL on every call; on the hot paths (authentication, SSH keys, events) that was a third
 * of the server's CPU time under load, more than running the SQL. A prepared query is written
 * with the same builder, once per dialect, with stand-ins where its values go; each call puts
 * its values in their places and sends the SQL unchanged, still through the handle it is given
 * (so an open transaction, and SQLite's one-connection queue, work as for any other query).
 *
 *   const byHash = prepared((db: Kysely<TokenTables>, hash: string) => db.selectFrom("tokens").selectAll().where("token_hash", "=", hash));
 *   const [row] = await byHash(this.db, hash);
 *
 * The builder may only put the stand-ins where values go (a comparison's right side, `limit`,
 * `offset`, an inserted value); it is checked on first use that each arrives as a parameter.
 * Inserts have `preparedInsert`, which takes the row as an object.
 */
import { sql, type Compilable, type CompiledQuery, type Insertable, type Kysely, type RawBuilder } from "kysely";
import type { Handle } from "../store";

/** Stands for the builder's `index`-th value while the query is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

/** `arity`: how many values `build` takes after `db` (default: as many as it declares). */
export function prepared<DB, A extends unknown[], R>(
  build: (db: Kysely<DB>, ...values: A) => Compilable<R>,
  arity = build.length - 1,
): (db: Kysely<DB>, ...values: A) => Promise<R[]> {
  // One compilation per dialect: the compiler belongs to the adapter's dialect.
  const compiled = new Map<unknown, CompiledQuery<R>>();
  return async (db, ...values) => {
    const dialect = db.getExecutor().adapter.constructor;
    let query = compiled.get(dialect);
    if (query === undefined) {
      const slots = Array.from({ length: arity }, (_, i) => new Slot(i));
      query = build(db, ...(slots as A)).compile();
      const used = new Set(query.parameters.filter((p): p is Slot => p instanceof Slot).map((p) => p.index));
      if (used.size !== arity) throw new Error(`prepared query: a value did not become a parameter in ${query.sql}`);
      compiled.set(dialect, query);
    }
    const parameters = query.parameters.map((p) => (p instanceof Slot ? values[p.index] : p));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}

/**
 * `insert into <table> (<columns>) values (<values>)`, the SQL Kysely's builder writes for it. Written
 * from names rather than with the builder: at compile time the values are stand-ins, which no table
 * type describes, so the builder could only take them cast to `never`.
 */
const insertSql = (table: string, columns: readonly string[], values: readonly unknown[]): RawBuilder<unknown> =>
  sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) values (${sql.join(values.map((v) => sql.val(v)))})`;

/** A row's values in the order of `columns`, as a prepared insert takes them. */
const valuesOf = (columns: readonly string[], row: object): unknown[] => columns.map((c) => Reflect.get(row, c));

/**
 * `insert into <table> (<columns>) values (...) returning id`, prepared: answers the new row's
 * id. The row names a value for every column, so the stored row is those values and the id
 * (for tables with no other default, whose columns take the values' types as they are).
 * Curried so that the database's tables are named and the table and columns inferred:
 * `preparedInsert<SshKeyTables>()("ssh_keys", ["user_id", "label", "ssh_key", "created"])`.
 */
export const preparedInsert =
  <DB>() =>
  <T extends keyof DB & string, C extends keyof Insertable<DB[T]> & string>(
    table: T,
    columns: readonly C[],
  ): ((db: Kysely<DB>, row: Pick<Insertable<DB[T]>, C>) => Promise<number>) => {
    const insert = prepared((db: Kysely<DB>, ...values: unknown[]): Compilable<{ id: number }> => {
      // Every table a prepared insert serves has an integer `id` (the doc comment above).
      const query = sql<{ id: number }>`${insertSql(table, columns, values)} returning ${sql.ref("id")}`;
      return { compile: () => query.compile(db) };
    }, columns.length);
    return async (db, row) => {
      const [inserted] = await insert(db, ...valuesOf(columns, row));
      return inserted!.id;
    };
  };

/**
 * Ends the SQL of a write whose answer its transaction does not wait for (an insert with no
 * `returning`): on Postgres, inside a transaction, it is held back and sent with the
 * transaction's next statement or its commit, in that statement's round trip
 * (./named-statements.ts); elsewhere it is an ordinary comment. Its failure fails that
 * statement, and so the transaction, as its own would.
 */
export const LATER = " /* later */";

/**
 * `preparedInsert` for a row whose id is not needed: no `returning`, and marked `LATER`, so on
 * Postgres it costs its transaction no round trip of its own.
 */
export const preparedInsertLater =
  <DB>() =>
  <T extends keyof DB & string, C extends keyof Insertable<DB[T]> & string>(
    table: T,
    columns: readonly C[],
  ): ((db: Kysely<DB>, row: Pick<Insertable<DB[T]>, C>) => Promise<void>) => {
    const insert = prepared((db: Kysely<DB>, ...values: unknown[]): Compilable<unknown> => {
      const query = sql`${insertSql(table, columns, values)}${sql.raw(LATER)}`;
      return { compile: () => query.compile(db) };
    }, columns.length);
    return async (db, row) => {
      await insert(db, ...valuesOf(columns, row));
    };
  };

/**
 * `preparedInsert` for a table whose ids may be reserved ahead: on a store that reserves them
 * (`Handle.reserveId`, Postgres) the row goes in with its id and marked `LATER`, so inside a
 * transaction the insert waits for no answer and goes out with the commit; elsewhere, as
 * `preparedInsert`. For tables whose ids need not follow creation order across servers (see
 * ./id-blocks.ts), and inserts whose failure the transaction does not catch (held back, it
 * fails the statement it goes with, or the commit).
 */
export const preparedInsertReserved =
  <DB>() =>
  <T extends keyof DB & string, C extends keyof Insertable<DB[T]> & string>(
    table: T,
    columns: readonly C[],
  ): ((handle: Handle<DB>, row: Pick<Insertable<DB[T]>, C>) => Promise<number>) => {
    const returning = preparedInsert<DB>()(table, columns);
    const withId = preparedInsertLater<DB>()(table, ["id" as C, ...columns]);
    return async (handle, row) => {
      const reserved = handle.reserveId(table);
      if (reserved === undefined) return returning(handle.db, row);
      const id = typeof reserved === "number" ? reserved : await reserved;
      await withId(handle.db, { ...row, id } as Pick<Insertable<DB[T]>, C>);
      return id;
    };
  };
