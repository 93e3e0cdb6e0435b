/**
 * What the admin namespace works on, and how admin modules register endpoints. The admin
 * namespace lives outside `/v4` (at `/__admin`) and accepts only the admin credential:
 * `Authorization: Bearer <admin token>`, a separate random token (or `MGMT_ADMIN_TOKEN`).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Secrets } from "../clock";
import type { Domain, Store } from "../areas";
import { DomainError } from "../domain/errors";
import type { RateLimiter } from "../http/ratelimit";
import type { RequestTransaction } from "../http/router";
import type { SettableClock } from "../settable-clock";
import type { RequestCounters } from "./counters";
import type { FaultTable } from "./faults";

export const ADMIN_PREFIX = "/__admin";

export interface AdminContext {
  readonly token: string;
  readonly domain: Domain;
  readonly store: Store;
  readonly clock: SettableClock;
  readonly secrets: Secrets;
  readonly faults: FaultTable;
  readonly counters: RequestCounters;
  /** Null when rate limiting is off. */
  readonly limiter: RateLimiter | null;
  /**
   * Wipes the store and bootstraps it again (then re-applies the start's fixtures unless
   * `fixtures` is false); clears faults, counters, rate windows and the SMS outbox. Returns
   * the new bootstrap token.
   */
  reset(options: { fixtures: boolean }): Promise<{ token: string }>;
}

/** An admin handler's answer: 200 with `body` unless `status` says otherwise. */
export interface AdminAnswer {
  status?: number;
  body: unknown;
}

export type AdminHandler = (req: FastifyRequest) => Promise<AdminAnswer>;

export interface AdminEndpoint {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  summary: string;
}

/**
 * Registers admin endpoints under `/__admin`, behind the admin credential. As on `/v4` (`Router.writesIn`), each
 * write runs whole in `transaction`, its answer built inside it: a user made and then its token refused leaves no
 * user, and a 500 means nothing was committed. A write that changes only what the server keeps in memory, or that
 * cannot run in a transaction, says why with `ownCommit`.
 */
export class AdminRouter {
  readonly endpoints: AdminEndpoint[] = [];
  private readonly tokenHash: Buffer;

  constructor(
    private readonly app: FastifyInstance,
    token: string,
    private readonly transaction: RequestTransaction,
  ) {
    this.tokenHash = createHash("sha256").update(token).digest();
  }

  private check = async (req: FastifyRequest): Promise<void> => {
    const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? "");
    const given = createHash("sha256")
      .update(match?.[1] ?? "")
      .digest();
    if (match === null || !timingSafeEqual(given, this.tokenHash)) throw new DomainError("unauthenticated", [{ reason: "Invalid admin token" }]);
  };

  /** `ownCommit`: why this write runs outside a transaction of its own (see the class). */
  add(method: AdminEndpoint["method"], path: string, summary: string, handler: AdminHandler, ownCommit?: string): this {
    this.endpoints.push({ method, path: ADMIN_PREFIX + path, summary });
    const atomic = method !== "GET" && ownCommit === undefined;
    this.app.route({
      method,
      url: ADMIN_PREFIX + path,
      onRequest: [this.check],
      handler: async (req, reply) => {
        const answer = atomic ? await this.transaction(() => handler(req)) : await handler(req);
        return reply.code(answer.status ?? 200).send(answer.body);
      },
    });
    return this;
  }

  get = (path: string, summary: string, handler: AdminHandler) => this.add("GET", path, summary, handler);
  post = (path: string, summary: string, handler: AdminHandler, ownCommit?: string) => this.add("POST", path, summary, handler, ownCommit);
  put = (path: string, summary: string, handler: AdminHandler, ownCommit?: string) => this.add("PUT", path, summary, handler, ownCommit);
  delete = (path: string, summary: string, handler: AdminHandler, ownCommit?: string) => this.add("DELETE", path, summary, handler, ownCommit);
}

/**
 * The `ownCommit` of an admin write that changes only the server's memory (clock, faults, counters, SMS outbox): it has
 * nothing in the store to roll back, and a transaction run again (Postgres) would do it twice.
 */
export const IN_MEMORY = "it changes only what the server keeps in memory";

/** A group of admin endpoints (one file per area); listed in `./modules.ts`. */
export interface AdminModule {
  name: string;
  register(r: AdminRouter, ctx: AdminContext): void;
}
