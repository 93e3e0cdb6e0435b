/**
 * Statements prepared once per connection: a query with parameters is sent under a name that
 * stands for its SQL text, so Postgres parses and plans it on a connection's first use only and
 * then just binds and runs it. The texts are few (Kysely builds the same SQL for the same query
 * shape; hot paths compile theirs once, see ./prepared.ts), but a text that varies (an `in` list
 * of any length) could make many: past `MAX_NAMED`, texts go unnamed, as before.
 *
 * Only after migrations (`startNaming`): a statement prepared before the schema changes could
 * no longer answer its columns.
 */
import type pg from "pg";
import { LATER } from "./prepared";
import { answer, asText, endAnswer, hasPrepared, isBegin, sendBehind, type Ahead } from "./deferred-begin";

/** Distinct texts given a name; each connection prepares at most these. */
export const MAX_NAMED = 500;

type Query = (...args: unknown[]) => unknown;

/** What a held-back statement is answered with at once: its command, and one row for an insert. */
const heldAnswer = (text: string) => {
  const command = (/^\s*(\w+)/.exec(text)?.[1] ?? "").toUpperCase();
  return answer(command, command === "INSERT" ? 1 : null);
};

export class NamedStatements {
  private readonly names = new Map<string, string>();
  private readonly clients = new WeakMap<pg.PoolClient, pg.PoolClient>();
  private naming = false;

  /** From now on, queries with parameters go by name. */
  startNaming(): void {
    this.naming = true;
  }

  /** The name of `text`, or undefined for a text past the bound. */
  nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_NAMED) this.names.set(text, (name = `mgmt_${this.names.size}`));
    return name;
  }

  /**
   * `client`, sending named queries, with a transaction's begin and its writes marked `LATER`
   * held back and sent with its next statement or its commit (./deferred-begin.ts); its own
   * `query` is looked up at each call, as for the client itself.
   */
  private client(client: pg.PoolClient): pg.PoolClient {
    /** A transaction is open on this client (its begin asked for, its end not yet). */
    let open = false;
    /** Prepared statements held back, in order: the begin, then writes marked `LATER`. */
    let ahead: Ahead[] = [];
    /** Their texts (to send them one by one where they cannot go ahead of a query). */
    let aheadTexts: string[] = [];
    /** Nothing of the open transaction has reached the server yet (its begin is held back). */
    let unsent = false;
    const reset = () => {
      open = unsent = false;
      ahead = [];
      aheadTexts = [];
    };
    const send = (text: unknown, values: unknown, ...rest: unknown[]): unknown => {
      const query = client.query as Query;
      const plain = typeof text === "string" && rest.length === 0 && (values === undefined || Array.isArray(values));
      const params = (values as unknown[] | undefined) ?? [];
      const later = typeof text === "string" && text.endsWith(LATER);
      // A held-back statement goes by name, so one without parameters (a savepoint) is named too.
      const name = this.naming && typeof text === "string" && Array.isArray(values) && (values.length > 0 || later) ? this.nameOf(text) : undefined;
      if (this.naming && plain && !open && params.length === 0 && isBegin(text)) {
        const begin = this.nameOf(text);
        if (begin !== undefined) {
          open = true;
          // The connection's first transaction prepares the begin, the ordinary way.
          if (!hasPrepared(client, begin)) return query.call(client, { name: begin, text, values: [] });
          unsent = true;
          ahead.push({ name: begin, values: [] });
          aheadTexts.push(text);
          return Promise.resolve(answer("BEGIN"));
        }
      }
      if (open && plain && name !== undefined && later && hasPrepared(client, name)) {
        const asValues = asText(params);
        if (asValues !== undefined) {
          ahead.push({ name, values: asValues });
          aheadTexts.push(text);
          // A held-back write inserts one row (`preparedInsertLater`); a savepoint's answer has no count.
          return Promise.resolve(heldAnswer(text as string));
        }
      }
      const end = plain && params.length === 0 ? endAnswer(text) : undefined;
      if (end !== undefined) {
        const held = ahead;
        const nothingSent = unsent;
        reset();
        // Nothing reached the server: there is no transaction there to end.
        if (nothingSent && (end.command === "ROLLBACK" || held.length === 1)) return Promise.resolve(end);
        if (end.command === "ROLLBACK") return query.call(client, text, values);
        if (held.length > 0) return sendBehind(client, held, { text: text as string, values: [] });
        return query.call(client, text, values);
      }
      if (ahead.length > 0) {
        const held = ahead;
        const heldTexts = aheadTexts;
        ahead = [];
        aheadTexts = [];
        unsent = false;
        if (plain) return sendBehind(client, held, { name, text: text as string, values: params });
        // Another form of query (none Kysely sends): what was held back goes first, one by one.
        let chain: Promise<unknown> = Promise.resolve();
        held.forEach((h, i) => (chain = chain.then(() => query.call(client, { name: h.name, text: heldTexts[i], values: h.values }))));
        return chain.then(() => send(text, values, ...rest));
      }
      return name === undefined ? query.call(client, text, values, ...rest) : query.call(client, { name, text, values });
    };
    return new Proxy(client, {
      get: (target, prop) => {
        if (prop === "query") return send;
        const value: unknown = Reflect.get(target, prop, target);
        if (prop === "release") {
          // A transaction always ends before its connection goes back; should one not, what it held back goes nowhere.
          return (...args: unknown[]) => {
            reset();
            return (value as Query).apply(target, args);
          };
        }
        return typeof value === "function" ? (value as Query).bind(target) : value;
      },
    });
  }

  /** The pool's clients send named queries (Kysely calls `query(text, values)`; other forms pass unchanged). */
  pool(pool: pg.Pool): pg.Pool {
    return new Proxy(pool, {
      get: (target, prop) => {
        if (prop !== "connect") {
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === "function" ? (value as Query).bind(target) : value;
        }
        return async () => {
          const client = await target.connect();
          let named = this.clients.get(client);
          if (named === undefined) {
            // A connection that breaks while lent out fails its query (the request gets the
            // error) and then emits `error`, which the pool listens for only while it is idle:
            // unheard, it would end the process. The pool drops the broken client on release.
            client.on("error", () => {});
            this.clients.set(client, (named = this.client(client)));
          }
          return named;
        };
      },
    });
  }
}
