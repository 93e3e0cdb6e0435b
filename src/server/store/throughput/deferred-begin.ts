/**
 * A transaction's `BEGIN` sent with its first statement, in one round trip instead of two.
 *
 * `pg` sends one query at a time and waits for its answer, so a write transaction of two
 * inserts cost four round trips on its connection: begin, insert, insert, commit. Here the
 * begin is held back (Kysely is answered at once) and goes out in front of the transaction's
 * first statement, in the same extended-protocol exchange: Bind and Execute of the begin (a
 * statement prepared on the connection), then the statement's own messages and one Sync.
 * Postgres runs them in order as one pipeline: the begin opens the transaction, the statement
 * runs in it, and an error in either skips the rest up to the Sync and fails the statement, as
 * a failed begin or statement would on its own (Kysely then rolls back, as before). Nothing
 * runs outside the transaction: the statement is never sent without its begin in front.
 *
 * A write whose answer the transaction does not wait for (`LATER`, ./prepared.ts: an event's
 * insert) is held back the same way and goes in front of the transaction's next statement or
 * its commit. A transaction that sends nothing commits or rolls back without a round trip
 * (there is no transaction on the server to end). The bookkeeping per connection is in
 * ./named-statements.ts; this module writes the exchanges.
 *
 * The begin's prepared statement is made the ordinary way on the connection's first
 * transaction (one round trip, as before), and a write is held back only once its statement
 * is prepared, so the pipelined exchange never carries a Parse of theirs, whose answer `pg`
 * would credit to the statement.
 */
import pg from "pg";

/** What Kysely sends to open a transaction (`start transaction isolation level ...`, `begin`). */
const BEGIN = /^\s*(?:start\s+transaction|begin)\b/i;
/** What Kysely sends to end one. */
const END = /^\s*(commit|rollback)\s*;?\s*$/i;

export const isBegin = (text: string): boolean => BEGIN.test(text);

/** The answer `pg` would give to `commit` or `rollback` (what Kysely reads of it), or undefined for other text. */
export function endAnswer(text: string): pg.QueryResult | undefined {
  const end = END.exec(text)?.[1];
  return end === undefined ? undefined : answer(end.toUpperCase());
}

/** A command's answer with no rows, as Kysely reads it (`command`, `rowCount`: Kysely counts an insert's rows). */
export function answer(command: string, rowCount: number | null = null): pg.QueryResult {
  return { command, rowCount, rows: [], oid: 0, fields: [] };
}

/** The part of `pg`'s connection the pipelined exchange writes to (not in its type declarations). */
interface WireConnection {
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string | undefined>;
  bind(config: { portal: string; statement: string; values: Array<string | null> }): void;
  execute(config: { portal: string }): void;
}

/** `pg`'s Query as subclassed here: its per-message handlers are not in its type declarations. */
interface QueryInternals {
  submit(connection: WireConnection): Error | null | undefined;
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: WireConnection): void;
  handleError(err: unknown, connection: WireConnection): void;
}
/**
 * The one `as unknown as` of the store: `pg` declares its Query without the message handlers a
 * subclass overrides and with `submit` as a property, which a method may not override, so its
 * declared type cannot be extended as the class really is (pg.Query with the config's callback,
 * in pg 8).
 */
const PgQuery = pg.Query as unknown as new (config: pg.QueryConfig & { callback: (err: Error | null, res: pg.QueryResult) => void }) => QueryInternals;

/** True when `client`'s connection has prepared the statement `name` (see the module comment). */
export function hasPrepared(client: pg.PoolClient, name: string): boolean {
  // Read from pg internals (not in its type declarations): should a later pg not keep them, nothing is held back (every query goes as before).
  const statements: unknown = Reflect.get(client.connection ?? {}, "parsedStatements");
  return typeof statements === "object" && statements !== null && Reflect.get(statements, name) !== undefined;
}

const HELD_BACK_FAILED = Symbol("held back failed");

/**
 * Whether `err` failed a query because of a statement sent ahead of it (a held-back begin or
 * write, see `sendBehind`), not the query's own.
 */
export const heldBackFailed = (err: unknown): boolean => err !== null && typeof err === "object" && (err as Record<symbol, unknown>)[HELD_BACK_FAILED] === true;

/** A statement bound and run in front of a query, in its exchange: prepared on the connection, values as text. */
export interface Ahead {
  name: string;
  values: ReadonlyArray<string | null>;
}

/**
 * A query sent behind statements already prepared on the connection (a held-back begin,
 * writes held back, see ./named-statements.ts): Bind and Execute of each, then the query's own
 * messages and one Sync. Their CommandCompletes (and any rows) come first and are not its
 * result; an error in any fails the query, and Postgres skips the rest up to the Sync.
 */
class PipelinedQuery extends PgQuery {
  private unanswered: number;

  constructor(
    private readonly ahead: readonly Ahead[],
    config: pg.QueryConfig & { callback: (err: Error | null, res: pg.QueryResult) => void },
  ) {
    // Always the extended protocol: a simple Query message would be answered with a Sync of its own.
    super({ ...config, queryMode: "extended" } as typeof config);
    this.unanswered = ahead.length;
  }

  override submit(connection: WireConnection): Error | null | undefined {
    // pg refuses a query only for a missing text or values that are not an array, checked
    // before anything is written (`sendBehind`), so what goes ahead never goes out alone.
    connection.stream.cork?.();
    try {
      for (const { name, values } of this.ahead) {
        connection.bind({ portal: "", statement: name, values: [...values] });
        connection.execute({ portal: "" });
      }
      return super.submit(connection);
    } finally {
      connection.stream.uncork?.();
    }
  }

  override handleError(err: unknown, connection: WireConnection): void {
    // A statement sent ahead failed (or the connection did before they were all answered).
    if (this.unanswered > 0 && err !== null && typeof err === "object") (err as Record<symbol, boolean>)[HELD_BACK_FAILED] = true;
    super.handleError(err, connection);
  }

  override handleDataRow(msg: unknown): void {
    if (this.unanswered === 0) super.handleDataRow(msg);
  }

  override handleCommandComplete(msg: unknown, connection: WireConnection): void {
    if (this.unanswered > 0) {
      this.unanswered--;
      return;
    }
    super.handleCommandComplete(msg, connection);
  }
}

/** Sends `text` with `values` on `client` behind the prepared statements `ahead`, in one round trip. */
export function sendBehind(
  client: pg.PoolClient,
  ahead: readonly Ahead[],
  config: { name?: string; text: string; values: unknown[] },
): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new PipelinedQuery(ahead, { ...config, callback: (err, res) => (err ? reject(err) : resolve(res)) });
    (client.query as (q: unknown) => unknown).call(client, query);
  });
}

/**
 * The values of a statement sent ahead, as pg would send them, or undefined when one is of a
 * kind this does not convert (such a write is sent on its own, at once).
 */
export function asText(values: readonly unknown[]): Array<string | null> | undefined {
  const out: Array<string | null> = [];
  for (const v of values) {
    if (v === null || v === undefined) out.push(null);
    else if (typeof v === "string") out.push(v);
    else if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") out.push(String(v));
    else return undefined;
  }
  return out;
}
