/**
 * What `startServer` adds around the API: fixtures (the `--fixtures` file or the defaults,
 * applied once to a store its start created), the admin namespace's context (admin token,
 * settable clock, faults, counters, reset) and the optional rate limiter.
 */
import { randomBytes } from "node:crypto";
import { BEARER_TOKEN_TEXT, isBearerTokenText } from "../contract/field-rules";
import type { Secrets } from "./clock";
import type { Domain, Store } from "./areas";
import type { AdminContext } from "./admin/context";
import { RequestCounters } from "./admin/counters";
import { FaultTable } from "./admin/faults";
import { defaultFixtures } from "./fixtures/default";
import { applyFixtures, loadFixturesFile, parseFixtures, type Fixtures } from "./fixtures/loader";
import { RateLimiter } from "./http/ratelimit";
import type { Logger } from "./logger";
import type { SettableClock } from "./settable-clock";

export interface ExtrasOptions {
  /** Fixed admin credential (`MGMT_ADMIN_TOKEN`); default: a random one per start. */
  adminToken?: string;
  /** A fixtures file path, or a parsed JSON document (`{"version":1,...}`), applied to a fresh store. */
  fixtures?: string | object;
  /** Load the built-in default fixtures when no `fixtures` is given (default false; `mgmt serve` turns it on). */
  defaultFixtures?: boolean;
  /** Requests per caller per minute; 0 or absent: no limit. */
  rateLimit?: number;
}

/** The fixtures to load, validated before the store is touched. */
export function resolveFixtures(options: ExtrasOptions): Fixtures | null {
  if (typeof options.fixtures === "string") return loadFixturesFile(options.fixtures);
  if (options.fixtures !== undefined) return parseFixtures(options.fixtures, "fixtures");
  return options.defaultFixtures === true ? defaultFixtures() : null;
}

export interface ExtrasDeps {
  options: ExtrasOptions;
  fixtures: Fixtures | null;
  store: Store;
  domain: Domain;
  clock: SettableClock;
  secrets: Secrets;
  logger: Logger;
  /** Whether this start created the store (fixtures load only then). */
  created: boolean;
  /** The fixed bootstrap token (`MGMT_SERVE_TOKEN`), kept across a reset. */
  fixedToken?: string;
}

export async function setupExtras(deps: ExtrasDeps): Promise<AdminContext> {
  const { options, fixtures, store, domain, clock, secrets, logger } = deps;
  if (options.adminToken !== undefined && !isBearerTokenText(options.adminToken)) {
    throw new Error(`the admin token (MGMT_ADMIN_TOKEN) ${BEARER_TOKEN_TEXT}`);
  }
  if (fixtures !== null) {
    if (deps.created) {
      await applyFixtures({ store, clock, secrets }, fixtures);
      logger.info("fixtures loaded", { source: fixtures.source, sections: [...fixtures.sections.keys()].join(",") });
    } else {
      logger.info("fixtures skipped: the store existed already", { source: fixtures.source });
    }
  }
  const rate = options.rateLimit ?? 0;
  const ctx: AdminContext = {
    token: options.adminToken ?? randomBytes(32).toString("hex"),
    domain,
    store,
    clock,
    secrets,
    faults: new FaultTable(),
    counters: new RequestCounters(),
    limiter: rate > 0 ? new RateLimiter(rate, clock) : null,
    reset: async ({ fixtures: withFixtures }) => {
      if (store.wipe === undefined) throw new Error("this store cannot be wiped");
      await store.wipe();
      const boot = await domain.accounts.bootstrap({ token: deps.fixedToken });
      if (withFixtures && fixtures !== null) await applyFixtures({ store, clock, secrets }, fixtures);
      domain.phone.outbox.length = 0;
      ctx.faults.clear();
      ctx.counters.clear();
      ctx.limiter?.clear();
      logger.info("store reset", { fixtures: withFixtures && fixtures !== null });
      return { token: boot.token! };
    },
  };
  return ctx;
}
