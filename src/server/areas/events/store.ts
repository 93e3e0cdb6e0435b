/** The event feed: tables, records and queries. Entities are JSON text in their columns. */
import { sql, type ExpressionBuilder, type Expression, type Generated, type Selectable, type SelectQueryBuilder, type SqlBool } from "kysely";
import { filterSql, flavorOf, type Filter, type FilterColumns, type FilterSql } from "../../store/filter-sql";
import { preparedInsert, preparedInsertLater } from "../../store/throughput";
import { Repository, countN, counted, type Counted, type Handle, type Slice } from "../../store/store";
import type { EventEntity } from "../../domain/records";

export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number | null;
  username: string | null;
  action: string;
  status: string;
  created: string;
  duration: number;
  /** `entity` and `secondary_entity` as JSON text (null: none). */
  entity: string | null;
  /** The entity's type and id as text, for filtering and grants. */
  entity_type: string | null;
  entity_id: string | null;
  secondary_entity: string | null;
  message: string | null;
  percent_complete: number | null;
  rate: string | null;
  time_remaining: string | null;
}

/** Events a user marked read. */
export interface EventReadsTable {
  user_id: number;
  event_id: number;
}

/** The highest event id a user marked seen. */
export interface EventSeenTable {
  user_id: number;
  up_to: number;
}

export interface EventTables {
  events: EventsTable;
  event_reads: EventReadsTable;
  event_seen: EventSeenTable;
}

export type EventStatus = "failed" | "finished" | "notification" | "scheduled" | "started";

/** An event; `user_id` and `username` are null for the system. */
export type EventRecord = Omit<Selectable<EventsTable>, "status" | "entity" | "entity_type" | "entity_id" | "secondary_entity"> & {
  status: EventStatus;
  entity: EventEntity | null;
  secondary_entity: EventEntity | null;
};
export type NewEvent = Omit<EventRecord, "id">;

const entityOf = (text: string | null): EventEntity | null => (text === null ? null : (JSON.parse(text) as EventEntity));

const eventRecord = ({ entity_type: _, entity_id: __, ...row }: Selectable<EventsTable>): EventRecord => ({
  ...row,
  status: row.status as EventStatus,
  duration: Number(row.duration),
  entity: entityOf(row.entity),
  secondary_entity: entityOf(row.secondary_entity),
});

/** Every write records an event: prepared (see `../../store/throughput/prepared.ts`). */
const EVENT_COLUMNS = [
  "account_id",
  "user_id",
  "username",
  "action",
  "status",
  "created",
  "duration",
  "entity",
  "entity_type",
  "entity_id",
  "secondary_entity",
  "message",
  "percent_complete",
  "rate",
  "time_remaining",
] as const;
const insertEvent = preparedInsert<EventTables>()("events", EVENT_COLUMNS);
/** The same insert, for a transaction that does not wait for the id (see `insertLater`). */
const insertEventLater = preparedInsertLater<EventTables>()("events", EVENT_COLUMNS);

/** The row of `event` as stored. */
const eventRow = (event: NewEvent) => ({
  ...event,
  entity: event.entity === null ? null : JSON.stringify(event.entity),
  entity_type: event.entity?.type ?? null,
  entity_id: event.entity === null ? null : String(event.entity.id),
  secondary_entity: event.secondary_entity === null ? null : JSON.stringify(event.secondary_entity),
});

/**
 * What a restricted user may see, as the store asks it (the rule is the service's `visibleTo`):
 * events with no entity or on `ownTypes` that the user caused, every event on `accountTypes`, and
 * events on the entities of `granted` (type to ids, as text).
 */
export interface EventVisibility {
  userId: number;
  ownTypes: readonly string[];
  accountTypes: readonly string[];
  granted: ReadonlyArray<{ type: string; ids: readonly string[] }>;
}

const visibleWhere =
  (v: EventVisibility) =>
  (eb: ExpressionBuilder<EventTables, "events">): Expression<SqlBool> => {
    const mine = eb("user_id", "=", v.userId);
    const ors: Array<Expression<SqlBool>> = [eb.and([eb("entity_type", "is", null), mine])];
    if (v.ownTypes.length > 0) ors.push(eb.and([eb("entity_type", "in", [...v.ownTypes]), mine]));
    if (v.accountTypes.length > 0) ors.push(eb("entity_type", "in", [...v.accountTypes]));
    for (const g of v.granted) if (g.ids.length > 0) ors.push(eb.and([eb("entity_type", "=", g.type), eb("entity_id", "in", [...g.ids])]));
    return eb.or(ors);
  };

/**
 * The feed's X-Filter fields as SQL (`EventView` as the route shows it): `read` is the user's mark, `entity.id` the
 * stored text with the JSON type of the entity's id (a number or a string, see `../../store/filter-sql.ts`).
 */
function eventColumns(userId: number, flavor: ReturnType<typeof flavorOf>): FilterColumns {
  const idType =
    flavor === "postgres"
      ? sql<string>`json_typeof(cast(${sql.ref("events.entity")} as json) -> 'id')`
      : sql<string>`json_type(${sql.ref("events.entity")}, '$.id')`;
  return {
    id: { kind: "number", value: sql.ref("events.id") },
    action: { kind: "text", value: sql.ref("events.action") },
    created: { kind: "timestamp", value: sql.ref("events.created") },
    read: {
      kind: "boolean",
      value: sql<SqlBool>`exists (select 1 from ${sql.table("event_reads")} where ${sql.ref("event_reads.user_id")} = ${userId} and ${sql.ref("event_reads.event_id")} = ${sql.ref("events.id")})`,
    },
    "entity.id": {
      kind: "id",
      value: sql.ref("events.entity_id"),
      isNumber: flavor === "postgres" ? sql<SqlBool>`coalesce(${idType} = 'number', false)` : sql<SqlBool>`coalesce(${idType} in ('integer', 'real'), 0)`,
      isString: flavor === "postgres" ? sql<SqlBool>`coalesce(${idType} = 'string', false)` : sql<SqlBool>`coalesce(${idType} = 'text', 0)`,
    },
    "entity.type": { kind: "text", value: sql.ref("events.entity_type") },
  };
}

export class Events extends Repository<EventTables> {
  /**
   * Stays the same while no event and no user's read or seen mark can change (see `Handle.tablesMark`);
   * who may see which event is the grants' (`GrantRepos.grants.mark`).
   */
  feedMark(): string | undefined {
    return this.handle.tablesMark(["events", "event_reads", "event_seen"]);
  }

  /** `filter` (over `userId`'s view of the feed) as SQL for `pageSince`, newest first among equals; undefined: none exact. */
  filterFor(userId: number, filter: Filter): FilterSql | undefined {
    const flavor = flavorOf(this.db);
    return filterSql(filter, eventColumns(userId, flavor), sql`${sql.ref("events.id")} desc`, flavor);
  }

  async insert(event: NewEvent): Promise<EventRecord> {
    const id = await insertEvent(this.db, eventRow(event));
    return { id, ...event };
  }

  /**
   * Inserts `event` without asking for its id: inside a Postgres transaction the insert goes
   * with the transaction's next statement or its commit, costing no round trip of its own.
   */
  insertLater(event: NewEvent): Promise<void> {
    return insertEventLater(this.db, eventRow(event));
  }

  async get(accountId: number, id: number): Promise<EventRecord | undefined> {
    const row = await this.db.selectFrom("events").selectAll().where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return row && eventRecord(row);
  }

  /** Every event of the account created at or after `since`, ordered by id. */
  async listSince(accountId: number, since: string): Promise<EventRecord[]> {
    const rows = await this.db.selectFrom("events").selectAll().where("account_id", "=", accountId).where("created", ">=", since).orderBy("id").execute();
    return rows.map(eventRecord);
  }

  /**
   * One slice of the account's events created at or after `since`, newest first, with the count
   * of them all: the window and the page are the query's (index `events_account_id_created`), so
   * a page costs the same at 2,000 events as at 50,000. `visible` (a restricted user's view, see
   * `EventVisibility`) narrows both to the events that user may see; `filter` (from `filterFor`) to the ones it keeps,
   * in its order.
   */
  pageSince(accountId: number, since: string, slice: Slice, visible?: EventVisibility, filter?: FilterSql): Promise<Counted<EventRecord>> {
    const seen = <Q extends SelectQueryBuilder<EventTables, "events", object>>(q: Q): Q => {
      const narrowed = visible === undefined ? q : (q.where(visibleWhere(visible)) as Q);
      return filter === undefined ? narrowed : (narrowed.where(filter.where) as Q);
    };
    const inWindow = seen(this.db.selectFrom("events").where("account_id", "=", accountId).where("created", ">=", since));
    return counted(
      slice,
      () =>
        seen(
          this.db
            .selectFrom("events")
            .where("account_id", "=", accountId)
            // `created || ''`: the window is checked on each row read, not searched by the (account_id, created) index, so
            // the planners walk (account_id, id) newest first and stop at the page; searching by created meant sorting the
            // whole window (74 ms at 50,000 events on SQLite).
            .where(sql<string>`${sql.ref("created")} || ''`, ">=", since),
        )
          .selectAll()
          .select(() => inWindow.select(countN).as("total"))
          .orderBy(filter === undefined ? sql`${sql.ref("events.id")} desc` : filter.orderBy)
          .limit(slice.limit)
          .offset(slice.offset)
          .execute(),
      () => inWindow.select(countN).executeTakeFirst(),
      ({ total: _total, ...row }) => eventRecord(row),
    );
  }

  /** Which of `eventIds` the user has marked read. */
  async readIds(userId: number, eventIds: number[]): Promise<Set<number>> {
    if (eventIds.length === 0) return new Set();
    const ids = new Set<number>();
    // Chunked so a long feed stays under every driver's parameter limit.
    for (let i = 0; i < eventIds.length; i += 500) {
      const rows = await this.db
        .selectFrom("event_reads")
        .select("event_id")
        .where("user_id", "=", userId)
        .where("event_id", "in", eventIds.slice(i, i + 500))
        .execute();
      for (const r of rows) ids.add(Number(r.event_id));
    }
    return ids;
  }

  async markRead(userId: number, eventId: number): Promise<void> {
    await this.db.deleteFrom("event_reads").where("user_id", "=", userId).where("event_id", "=", eventId).execute();
    await this.db.insertInto("event_reads").values({ user_id: userId, event_id: eventId }).execute();
  }

  /** The highest event id the user has marked seen (0: none). */
  async seenUpTo(userId: number): Promise<number> {
    const row = await this.db.selectFrom("event_seen").select("up_to").where("user_id", "=", userId).executeTakeFirst();
    return row === undefined ? 0 : Number(row.up_to);
  }

  /** Raises the user's seen mark to `eventId` (never lowers it). */
  async markSeenUpTo(userId: number, eventId: number): Promise<void> {
    const current = await this.seenUpTo(userId);
    if (eventId <= current) return;
    await this.db.deleteFrom("event_seen").where("user_id", "=", userId).execute();
    await this.db.insertInto("event_seen").values({ user_id: userId, up_to: eventId }).execute();
  }
}

export const eventRepos = (handle: Handle<EventTables>) => ({ events: new Events(handle) });
export type EventRepos = ReturnType<typeof eventRepos>;
