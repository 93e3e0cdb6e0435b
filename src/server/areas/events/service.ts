/**
 * The event feed (`/account/events`) and the one way events get into it.
 *
 * STABLE API — other areas call this; keep these signatures:
 *   - `noteEvent(deps, input, tx)`: how the areas' operations record (tokens, SSH keys, profile,
 *     OAuth, tags, two-factor...): inside the operation's transaction, without waiting for the id;
 *   - `recordEvent(deps, input, store?)`: the same, waiting for the stored event, for the few callers
 *     outside such a transaction (account details, stale transfers);
 *   - `domain.events.record(input, store?)`: `recordEvent` as a service method (tests, benchmarks);
 *   - the `entity` / `secondary_entity` objects come from `entities.<kind>(...)` (`../../domain/event-entities.ts`);
 *   - `RecordInput`: `{ actor, action, entity, secondaryEntity?, status?, message?, accountId? }`.
 * Pass `store` (a transaction) to record inside one; the event then exists only if it commits.
 * `actor` is who caused the event (an `Actor`, anything with a `user`, or null for the system);
 * the event belongs to the actor's account unless `accountId` says otherwise.
 *
 * Read rules: the feed shows 90 days; restricted users see only events on entities they may
 * view (see `visibleTo`); `read` and `seen` are per user and change only through `markRead`
 * and `markSeen` (every event up to and including the id).
 */
import type { EventAction, GrantsResponse, Page, PageQuery } from "../../../contract";
import type { Filter } from "../../../contract/x-filter";
import type { StoreOf } from "../../store/store";
import { DAY, wireNow, wireAt, type Actor, type Deps } from "../../domain/context";
import { grantsOf, type GrantRepos } from "../../auth/grants";
import type { EventRecord, EventRepos, EventStatus, EventVisibility, NewEvent } from "./store";
import { notFound } from "../../domain/errors";
import { pageOf } from "../../domain/paging";
import type { EventEntity, UserRecord } from "../../domain/records";

export interface RecordInput {
  /** Who caused it; null: the system (no user, no username). */
  actor: { readonly user: UserRecord } | null;
  /** Default: the actor's account. Required when `actor` is null. */
  accountId?: number;
  action: EventAction;
  entity: EventEntity | null;
  secondaryEntity?: EventEntity | null;
  /** Default `notification` (an action that completed as it was asked). */
  status?: EventStatus;
  message?: string | null;
  /** Seconds; default 0. */
  duration?: number;
}

/** How far back the feed reaches. */
export const EVENT_WINDOW_DAYS = 90;

/** Records one event. See the STABLE API note at the top of this file. */
export async function recordEvent(deps: Deps<EventRepos>, input: RecordInput, store: StoreOf<EventRepos> = deps.store): Promise<EventRecord> {
  return store.events.insert(newEvent(deps, input));
}

/**
 * Records one event in the transaction `tx` without waiting for its id: the usual last write
 * of a transaction, which on Postgres then goes with the commit instead of a round trip of its
 * own. The event exists exactly when the transaction commits, as with `recordEvent`.
 */
export async function noteEvent(deps: Deps<EventRepos>, input: RecordInput, tx: StoreOf<EventRepos>): Promise<void> {
  await tx.events.insertLater(newEvent(deps, input));
}

function newEvent(deps: Deps<EventRepos>, input: RecordInput): NewEvent {
  const accountId = input.accountId ?? input.actor?.user.account_id;
  if (accountId === undefined) throw new Error("an event without an actor needs an accountId");
  return {
    account_id: accountId,
    user_id: input.actor?.user.id ?? null,
    username: input.actor?.user.username ?? null,
    action: input.action,
    status: input.status ?? "notification",
    created: wireNow(deps.clock),
    duration: input.duration ?? 0,
    entity: input.entity,
    secondary_entity: input.secondaryEntity ?? null,
    message: input.message ?? null,
    percent_complete: null,
    rate: null,
    time_remaining: null,
  };
}

/** An event as a user sees it: with that user's `read` and `seen`. */
export interface EventView extends EventRecord {
  read: boolean;
  seen: boolean;
}

/** Entity types whose visibility follows the grants of the same name. */
const GRANT_OF: Record<string, keyof Omit<GrantsResponse, "global">> = {
  compute: "compute",
  domain: "domain",
  volume: "volume",
  nodebalancer: "nodebalancer",
  image: "image",
  stackscript: "stackscript",
  longview: "longview",
  database: "database",
  vpc: "vpc",
  loadbalancer: "loadbalancer",
};
/** Entity types that belong to the user who acted (the profile area). */
const OWN_TYPES = new Set(["profile", "token", "user_ssh_key"]);
/** Entity types of the account itself: visible with any `account_access`. */
const ACCOUNT_TYPES = new Set(["account", "oauth_client", "entity_transfer", "payment_method", "user"]);

/**
 * Whether a restricted user with `grants` may see the event: their own profile-area events,
 * account-level ones with `account_access`, and events on an entity they hold a grant on.
 * Anything else (tags, which are for unrestricted users only, and unknown types) is hidden.
 */
export function visibleTo(event: EventRecord, userId: number, grants: GrantsResponse | null): boolean {
  if (grants === null) return true;
  const entity = event.entity;
  if (entity === null) return event.user_id === userId;
  if (OWN_TYPES.has(entity.type)) return event.user_id === userId;
  if (ACCOUNT_TYPES.has(entity.type)) return grants.global.account_access !== null;
  const grantKey = GRANT_OF[entity.type];
  if (grantKey === undefined) return false;
  return grants[grantKey].some((g) => g.id === entity.id && g.permissions !== null);
}

/** `visibleTo` for a restricted user, as the store's query condition (the same rule, asked of every row in SQL). */
export function visibilityOf(userId: number, grants: GrantsResponse): EventVisibility {
  return {
    userId,
    ownTypes: [...OWN_TYPES],
    accountTypes: grants.global.account_access === null ? [] : [...ACCOUNT_TYPES],
    granted: Object.entries(GRANT_OF).map(([type, key]) => ({
      type,
      ids: grants[key].filter((g) => g.permissions !== null).map((g) => String(g.id)),
    })),
  };
}

type Repos = EventRepos & GrantRepos;

export class EventService {
  constructor(private readonly deps: Deps<Repos>) {}

  /** See the STABLE API note at the top of this file. */
  record(input: RecordInput, store?: StoreOf<EventRepos>): Promise<EventRecord> {
    return recordEvent(this.deps, input, store);
  }

  private async views(actor: Actor, events: EventRecord[], store: StoreOf<Repos>): Promise<EventView[]> {
    const read = await store.events.readIds(
      actor.user.id,
      events.map((e) => e.id),
    );
    const seenUpTo = await store.events.seenUpTo(actor.user.id);
    return events.map((e) => ({ ...e, read: read.has(e.id), seen: e.id <= seenUpTo }));
  }

  /**
   * The mark a page of `list` is remembered under (`ListSpec.mark`): the store's, with the
   * window's start as the query compares it (to the second), so a remembered page lasts until an
   * event, a read or seen mark or a grant changes, or the clock moves the window.
   */
  listMark(): string | undefined {
    const events = this.deps.store.events.feedMark();
    const grants = this.deps.store.grants.mark();
    return events === undefined || grants === undefined ? undefined : `${events}/${grants}|${this.windowStart()}`;
  }

  private windowStart(): string {
    return wireAt(this.deps.clock, -EVENT_WINDOW_DAYS * DAY);
  }

  /**
   * `GET /account/events`, newest first (upstream's order). X-Filter is the store's too (`listWhere`,
   * through the route's shared list helper, `src/server/http/list.ts`). The store pages: the 90-day
   * window, a restricted user's visibility, the order and the page are the query's, and only the
   * page's events are read.
   */
  async list(actor: Actor, query: PageQuery): Promise<Page<EventView>> {
    return (await this.listWhere(actor, query, null))!;
  }

  /** `list` with X-Filter applied by the store too; undefined when `filter` has no exact SQL (see `Events.filterFor`). */
  async listWhere(actor: Actor, query: PageQuery, filter: Filter | null): Promise<Page<EventView> | undefined> {
    // No transaction: on SQLite one would hold the only connection and the write lock for the
    // whole read, every other request waiting behind it. The page is one statement (one snapshot,
    // count included); a mark made between it and `views` shows as it would a moment later.
    const store = this.deps.store;
    const where = filter === null ? undefined : store.events.filterFor(actor.user.id, filter);
    if (filter !== null && where === undefined) return undefined;
    const grants = await grantsOf(store, actor);
    const since = this.windowStart();
    const visible = grants === null ? undefined : visibilityOf(actor.user.id, grants);
    const page = await pageOf(query, (slice) => store.events.pageSince(actor.user.account_id, since, slice, visible, where));
    return { ...page, data: await this.views(actor, page.data, store) };
  }

  /** One event the actor may see (404 otherwise, also past the 90 days). */
  async get(actor: Actor, id: number, store: StoreOf<Repos> = this.deps.store): Promise<EventView> {
    const event = await store.events.get(actor.user.account_id, id);
    const since = this.windowStart();
    if (event === undefined || event.created < since || !visibleTo(event, actor.user.id, await grantsOf(store, actor))) throw notFound();
    return (await this.views(actor, [event], store))[0]!;
  }

  /** `POST /account/events/{id}/read`: that event, for this user. */
  async markRead(actor: Actor, id: number): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      await this.get(actor, id, tx);
      await tx.events.markRead(actor.user.id, id);
    });
  }

  /** `POST /account/events/{id}/seen`: every event up to and including `id`, for this user. */
  async markSeen(actor: Actor, id: number): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      await this.get(actor, id, tx);
      await tx.events.markSeenUpTo(actor.user.id, id);
    });
  }
}
