/**
 * The Kysely repositories of events, OAuth-client thumbnails, taggable objects, tags and
 * entity transfers (migration `0004_oauth_tags_events`). JSON and base64 live in TEXT
 * columns; conversions happen here and nowhere else.
 */
import type { Kysely } from "kysely";
import type { Database } from "./tables";
import type { EntityTransfersTable, EventsTable, ObjectsTable } from "./tables-oauth-tags-events";
import type { Selectable } from "kysely";
import {
  OBJECT_KINDS,
  type EventEntity,
  type EventRecord,
  type EventRepo,
  type EventStatus,
  type NewEvent,
  type NewObject,
  type NewTag,
  type NewTransfer,
  type OAuthTagsEventsStore,
  type ObjectKind,
  type ObjectRecord,
  type ObjectRepo,
  type TagRecord,
  type TagRepo,
  type ThumbnailRecord,
  type ThumbnailRepo,
  type TransferRecord,
  type TransferRepo,
  type TransferStatus,
} from "./oauth-tags-events";
import { isStorableId, type Slice } from "./store";
import { preparedInsert } from "./prepared";

const toCount = (value: string | number | bigint | undefined): number => Number(value ?? 0);
const entityOf = (text: string | null): EventEntity | null => (text === null ? null : (JSON.parse(text) as EventEntity));

function eventRecord(row: Selectable<EventsTable>): EventRecord {
  return {
    id: row.id,
    account_id: row.account_id,
    user_id: row.user_id,
    username: row.username,
    action: row.action,
    status: row.status as EventStatus,
    created: row.created,
    duration: Number(row.duration),
    entity: entityOf(row.entity),
    secondary_entity: entityOf(row.secondary_entity),
    message: row.message,
    percent_complete: row.percent_complete,
    rate: row.rate,
    time_remaining: row.time_remaining,
  };
}

/** Every write records an event: prepared (see `./prepared.ts`). */
const insertEvent = preparedInsert("events", [
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
]);

class Events implements EventRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(event: NewEvent): Promise<EventRecord> {
    const id = await insertEvent(this.db, {
      ...event,
      entity: event.entity === null ? null : JSON.stringify(event.entity),
      entity_type: event.entity?.type ?? null,
      entity_id: event.entity === null ? null : String(event.entity.id),
      secondary_entity: event.secondary_entity === null ? null : JSON.stringify(event.secondary_entity),
    });
    return { id, ...event };
  }

  async get(accountId: number, id: number): Promise<EventRecord | undefined> {
    const row = await this.db.selectFrom("events").selectAll().where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return row && eventRecord(row);
  }

  async listSince(accountId: number, since: string): Promise<EventRecord[]> {
    const rows = await this.db.selectFrom("events").selectAll().where("account_id", "=", accountId).where("created", ">=", since).orderBy("id").execute();
    return rows.map(eventRecord);
  }

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

  async seenUpTo(userId: number): Promise<number> {
    const row = await this.db.selectFrom("event_seen").select("up_to").where("user_id", "=", userId).executeTakeFirst();
    return row === undefined ? 0 : Number(row.up_to);
  }

  async markSeenUpTo(userId: number, eventId: number): Promise<void> {
    const current = await this.seenUpTo(userId);
    if (eventId <= current) return;
    await this.db.deleteFrom("event_seen").where("user_id", "=", userId).execute();
    await this.db.insertInto("event_seen").values({ user_id: userId, up_to: eventId }).execute();
  }
}

class Thumbnails implements ThumbnailRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async get(clientId: number): Promise<ThumbnailRecord | undefined> {
    const row = await this.db.selectFrom("oauth_thumbnails").selectAll().where("client_id", "=", clientId).executeTakeFirst();
    return row && { client_id: row.client_id, content_type: row.content_type, data: Buffer.from(row.data, "base64") };
  }

  async put(t: ThumbnailRecord): Promise<void> {
    await this.db.deleteFrom("oauth_thumbnails").where("client_id", "=", t.client_id).execute();
    await this.db.insertInto("oauth_thumbnails").values({ client_id: t.client_id, content_type: t.content_type, data: t.data.toString("base64") }).execute();
  }
}

const TABLE_OF = { compute: "compute_instances", domain: "domains", volume: "volumes", nodebalancer: "nodebalancers" } as const;

const objectRecord = (kind: ObjectKind, row: Selectable<ObjectsTable>): ObjectRecord => ({
  kind,
  id: row.id,
  account_id: row.account_id,
  label: row.label,
  created: row.created,
  updated: row.updated,
  body: JSON.parse(row.body) as Record<string, unknown>,
});

class Objects implements ObjectRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(object: NewObject): Promise<ObjectRecord> {
    const row = await this.db
      .insertInto(TABLE_OF[object.kind])
      .values({ account_id: object.account_id, label: object.label, created: object.created, updated: object.updated, body: JSON.stringify(object.body) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return objectRecord(object.kind, row);
  }

  async get(kind: ObjectKind, id: number): Promise<ObjectRecord | undefined> {
    // Body ids (tags, transfers) reach here unchecked; one past the column's range names nothing.
    if (!isStorableId(id)) return undefined;
    const row = await this.db.selectFrom(TABLE_OF[kind]).selectAll().where("id", "=", id).executeTakeFirst();
    return row && objectRecord(kind, row);
  }

  async setAccount(kind: ObjectKind, id: number, accountId: number, updated: string): Promise<void> {
    await this.db.updateTable(TABLE_OF[kind]).set({ account_id: accountId, updated }).where("id", "=", id).execute();
  }

  async listTagged(tagId: number): Promise<ObjectRecord[]> {
    const out: ObjectRecord[] = [];
    for (const kind of OBJECT_KINDS) {
      const rows = await this.db
        .selectFrom(TABLE_OF[kind])
        .selectAll()
        .where("id", "in", (eb) => eb.selectFrom("tag_links").select("object_id").where("tag_id", "=", tagId).where("kind", "=", kind))
        .orderBy("id")
        .execute();
      out.push(...rows.map((r) => objectRecord(kind, r)));
    }
    return out;
  }

  async tagsOf(kind: ObjectKind, ids: number[]): Promise<Map<number, string[]>> {
    const map = new Map<number, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return map;
    const rows = await this.db
      .selectFrom("tag_links as l")
      .innerJoin("tags as t", "t.id", "l.tag_id")
      .select(["l.object_id", "t.label"])
      .where("l.kind", "=", kind)
      .where("l.object_id", "in", ids)
      .orderBy("t.label")
      .execute();
    for (const r of rows) map.get(Number(r.object_id))?.push(r.label);
    return map;
  }
}

class Tags implements TagRepo {
  constructor(private readonly db: Kysely<Database>) {}

  insert(tag: NewTag): Promise<TagRecord> {
    return this.db.insertInto("tags").values(tag).returningAll().executeTakeFirstOrThrow();
  }

  get(accountId: number, label: string): Promise<TagRecord | undefined> {
    return this.db.selectFrom("tags").selectAll().where("account_id", "=", accountId).where("label", "=", label).executeTakeFirst();
  }

  async count(accountId: number): Promise<number> {
    const row = await this.db
      .selectFrom("tags")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return toCount(row?.n);
  }

  list(accountId: number, slice: Slice): Promise<TagRecord[]> {
    return this.db.selectFrom("tags").selectAll().where("account_id", "=", accountId).orderBy("label").orderBy("id").limit(slice.limit).offset(slice.offset).execute();
  }

  async link(tagId: number, kind: ObjectKind, objectId: number): Promise<void> {
    await this.db.deleteFrom("tag_links").where("tag_id", "=", tagId).where("kind", "=", kind).where("object_id", "=", objectId).execute();
    await this.db.insertInto("tag_links").values({ tag_id: tagId, kind, object_id: objectId }).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom("tag_links").where("tag_id", "=", id).execute();
    await this.db.deleteFrom("tags").where("id", "=", id).execute();
  }

  async unlinkObject(kind: ObjectKind, objectId: number): Promise<void> {
    await this.db.deleteFrom("tag_links").where("kind", "=", kind).where("object_id", "=", objectId).execute();
  }
}

const transferRecord = (row: Selectable<EntityTransfersTable>): TransferRecord => ({
  ...row,
  status: row.status as TransferStatus,
  entities: JSON.parse(row.entities) as TransferRecord["entities"],
});

class Transfers implements TransferRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(t: NewTransfer): Promise<TransferRecord> {
    const row = await this.db
      .insertInto("entity_transfers")
      .values({ ...t, entities: JSON.stringify(t.entities), receiver_account_id: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    return transferRecord(row);
  }

  async get(token: string): Promise<TransferRecord | undefined> {
    const row = await this.db.selectFrom("entity_transfers").selectAll().where("token", "=", token).executeTakeFirst();
    return row && transferRecord(row);
  }

  private mine(accountId: number) {
    return this.db
      .selectFrom("entity_transfers")
      .where((eb) => eb.or([eb("account_id", "=", accountId), eb("receiver_account_id", "=", accountId)]));
  }

  async count(accountId: number): Promise<number> {
    const row = await this.mine(accountId)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  async list(accountId: number, slice: Slice): Promise<TransferRecord[]> {
    const rows = await this.mine(accountId).selectAll().orderBy("id").limit(slice.limit).offset(slice.offset).execute();
    return rows.map(transferRecord);
  }

  async pendingOf(accountId: number): Promise<TransferRecord[]> {
    const rows = await this.db.selectFrom("entity_transfers").selectAll().where("account_id", "=", accountId).where("status", "=", "pending").execute();
    return rows.map(transferRecord);
  }

  async update(id: number, patch: Partial<Pick<TransferRecord, "status" | "updated" | "receiver_account_id">>): Promise<void> {
    if (Object.keys(patch).length === 0) return;
    await this.db.updateTable("entity_transfers").set(patch).where("id", "=", id).execute();
  }
}

/** Builds the repositories of this area over one Kysely instance (or transaction). */
export function oauthTagsEventsRepos(db: Kysely<Database>): OAuthTagsEventsStore {
  return {
    events: new Events(db),
    thumbnails: new Thumbnails(db),
    objects: new Objects(db),
    tags: new Tags(db),
    transfers: new Transfers(db),
  };
}
