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
import { answer, endAnswer, hasPrepared, isBegin, sendBehindBegin } from "./deferred-begin";

/** Distinct texts given a name; each connection prepares at most these. */
export const MAX_NAMED = 500;

type Query = (...args: unknown[]) => unknown;

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
   * `client`, sending named queries, and a transaction's begin with its first statement
   * (./deferred-begin.ts); its own `query` is looked up at each call, as for the client itself.
   */
  private client(client: pg.PoolClient): pg.PoolClient {
    /** The begin held back for the transaction open on this client, sent with its first statement. */
    let deferred: { name: string; text: string } | undefined;
    const send = (text: unknown, values: unknown, ...rest: unknown[]): unknown => {
      const query = client.query as Query;
      const plain = typeof text === "string" && rest.length === 0 && (values === undefined || Array.isArray(values));
      const params = (values as unknown[] | undefined) ?? [];
      if (this.naming && plain && deferred === undefined && params.length === 0 && isBegin(text)) {
        const name = this.nameOf(text);
        if (name !== undefined) {
          if (!hasPrepared(client, name)) return query.call(client, { name, text, values: [] });
          deferred = { name, text };
          return Promise.resolve(answer("BEGIN"));
        }
      }
      const name = this.naming && typeof text === "string" && Array.isArray(values) && values.length > 0 ? this.nameOf(text) : undefined;
      if (deferred !== undefined) {
        const begin = deferred;
        deferred = undefined;
        if (!plain) return (query.call(client, { name: begin.name, text: begin.text, values: [] }) as Promise<unknown>).then(() => send(text, values, ...rest));
        const ended = params.length === 0 ? endAnswer(text) : undefined;
        if (ended !== undefined) return Promise.resolve(ended);
        return sendBehindBegin(client, begin.name, { name, text, values: params });
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
            deferred = undefined;
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
          if (named === undefined) this.clients.set(client, (named = this.client(client)));
          return named;
        };
      },
    });
  }
}
