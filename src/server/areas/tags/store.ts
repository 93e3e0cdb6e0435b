/** Taggable account objects (read-only: compute instances, domains, volumes, load balancers) and tags: tables, records, queries. */
import type { Generated, Selectable } from "kysely";
import { Repository, countN, counted, isStorableId, totalOver, type Counted, type Handle, type Slice } from "../../store/store";

/** One table per kind of taggable object; fields beyond these are JSON in `body`. */
export interface ObjectsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  created: string;
  updated: string;
  body: string;
}

export interface TagsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  created: string;
}

export interface TagLinksTable {
  tag_id: number;
  kind: string;
  object_id: number;
}

export interface TagTables {
  compute_instances: ObjectsTable;
  domains: ObjectsTable;
  volumes: ObjectsTable;
  nodebalancers: ObjectsTable;
  tags: TagsTable;
  tag_links: TagLinksTable;
}

/** The read-only objects tags apply to (upstream: linodes, domains, volumes, nodebalancers). */
export const OBJECT_KINDS = ["compute", "domain", "volume", "nodebalancer"] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

/** `label` is the domain name for a domain; `body` the remaining wire fields, kind-specific (without id, label, created, updated, tags). */
export type ObjectRecord = Omit<Selectable<ObjectsTable>, "body"> & { kind: ObjectKind; body: Record<string, unknown> };
export type NewObject = Omit<ObjectRecord, "id">;

export type TagRecord = Selectable<TagsTable>;
export type NewTag = Omit<TagRecord, "id">;

const TABLE_OF = { compute: "compute_instances", domain: "domains", volume: "volumes", nodebalancer: "nodebalancers" } as const;

const objectRecord = (kind: ObjectKind, row: Selectable<ObjectsTable>): ObjectRecord => ({
  ...row,
  kind,
  body: JSON.parse(row.body) as Record<string, unknown>,
});

export class Objects extends Repository<TagTables> {
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

  /** Objects carrying the tag, ordered by kind (compute, domain, volume, nodebalancer) then id. */
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

  /** Tag labels per object id of one kind. */
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

export class Tags extends Repository<TagTables> {
  insert(tag: NewTag): Promise<TagRecord> {
    return this.db.insertInto("tags").values(tag).returningAll().executeTakeFirstOrThrow();
  }

  get(accountId: number, label: string): Promise<TagRecord | undefined> {
    return this.db.selectFrom("tags").selectAll().where("account_id", "=", accountId).where("label", "=", label).executeTakeFirst();
  }

  /** Ordered by label. */
  list(accountId: number, slice: Slice): Promise<Counted<TagRecord>> {
    const mine = () => this.db.selectFrom("tags").where("account_id", "=", accountId);
    return counted(
      slice,
      () => mine().selectAll().select(totalOver()).orderBy("label").orderBy("id").limit(slice.limit).offset(slice.offset).execute(),
      () => mine().select(countN).executeTakeFirst(),
      ({ total: _, ...tag }) => tag,
    );
  }

  async link(tagId: number, kind: ObjectKind, objectId: number): Promise<void> {
    await this.db.deleteFrom("tag_links").where("tag_id", "=", tagId).where("kind", "=", kind).where("object_id", "=", objectId).execute();
    await this.db.insertInto("tag_links").values({ tag_id: tagId, kind, object_id: objectId }).execute();
  }

  /** Removes the tag from every object and deletes it. */
  async delete(id: number): Promise<void> {
    await this.db.deleteFrom("tag_links").where("tag_id", "=", id).execute();
    await this.db.deleteFrom("tags").where("id", "=", id).execute();
  }

  /** Drops every tag link of an object (it left the account). */
  async unlinkObject(kind: ObjectKind, objectId: number): Promise<void> {
    await this.db.deleteFrom("tag_links").where("kind", "=", kind).where("object_id", "=", objectId).execute();
  }
}

export const tagRepos = (handle: Handle<TagTables>) => ({ objects: new Objects(handle), tags: new Tags(handle) });
export type TagRepos = ReturnType<typeof tagRepos>;
