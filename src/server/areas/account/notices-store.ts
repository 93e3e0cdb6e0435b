/**
 * What an account is told: region availability, maintenance and notifications. Records and
 * queries (the tables are in `./tables-store.ts`); bodies are JSON text as the API answers them.
 */
import { sql } from "kysely";
import { filterSql, flavorOf, type Filter, type FilterColumns, type FilterSql } from "../../store/filter-sql";
import { Repository, type Counted, type Handle, type Slice } from "../../store/store";
import type { AccountTables, RegionAvailabilityTable } from "./tables-store";
import { countedBodies, type BodyRecord } from "./billing-store";

/**
 * A maintenance item's X-Filter fields (the contract's table) as its columns; `id`, which `+order` alone orders by,
 * is no field of the item (every item ties there, and keeps the list's order), so it is null.
 */
const MAINTENANCE_COLUMNS: FilterColumns = {
  id: { kind: "number", value: sql`cast(null as integer)` },
  status: { kind: "text", value: sql.ref("maintenance.status") },
  type: { kind: "text", value: sql.ref("maintenance.type") },
  when: { kind: "timestamp", value: sql.ref("maintenance.when_at") },
};

export type AvailabilityRecord = Omit<RegionAvailabilityTable, "account_id" | "available" | "unavailable"> & { available: string[]; unavailable: string[] };

export class Notices extends Repository<AccountTables> {
  async listAvailability(accountId: number): Promise<AvailabilityRecord[] | null> {
    const rows = await this.db.selectFrom("region_availability").selectAll().where("account_id", "=", accountId).orderBy("region").execute();
    if (rows.length === 0) return null;
    return rows.map((r) => ({ region: r.region, available: JSON.parse(r.available) as string[], unavailable: JSON.parse(r.unavailable) as string[] }));
  }

  async replaceAvailability(accountId: number, regions: AvailabilityRecord[]): Promise<void> {
    await this.db.deleteFrom("region_availability").where("account_id", "=", accountId).execute();
    for (const r of regions) {
      await this.db
        .insertInto("region_availability")
        .values({ account_id: accountId, region: r.region, available: JSON.stringify(r.available), unavailable: JSON.stringify(r.unavailable) })
        .execute();
    }
  }

  async insertMaintenance(accountId: number, body: { status: string; type: string; when: string; entity: { id: number | string } }): Promise<number> {
    const row = await this.db
      .insertInto("maintenance")
      .values({
        account_id: accountId,
        body: JSON.stringify(body),
        status: body.status,
        type: body.type,
        when_at: body.when,
        entity_id: String(body.entity.id),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** `filter` as SQL for `pageMaintenance`, in id order among equals; undefined when it has none exact. */
  maintenanceFilter(filter: Filter): FilterSql | undefined {
    return filterSql(filter, MAINTENANCE_COLUMNS, sql`${sql.ref("maintenance.id")}`, flavorOf(this.db));
  }

  /**
   * One slice of the account's maintenance that is not canceled, by id, with their count: on the entities of
   * `entityIds` only when given (a restricted user's grants), and of those `filter` keeps, in its order, when given.
   */
  pageMaintenance(
    accountId: number,
    slice: Slice,
    entityIds: readonly string[] | null,
    filter?: FilterSql,
  ): Promise<Counted<BodyRecord<Record<string, unknown>>>> {
    let q = this.db
      .selectFrom("maintenance")
      .where("account_id", "=", accountId)
      .where((eb) => eb.or([eb("status", "is", null), eb("status", "<>", "canceled")]));
    if (entityIds !== null) q = entityIds.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where("entity_id", "in", [...entityIds]);
    if (filter !== undefined) q = q.where(filter.where);
    return countedBodies(q, slice, filter?.orderBy ?? sql`${sql.ref("maintenance.id")}`);
  }

  async insertNotification(accountId: number, body: { until: string | null }): Promise<number> {
    const row = await this.db
      .insertInto("notifications")
      .values({ account_id: accountId, body: JSON.stringify(body), resolved: null, until: body.until })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** One slice of the account's unresolved notifications whose `until` is not past `now`, by id, with their count. */
  pageNotifications(accountId: number, now: string, slice: Slice): Promise<Counted<BodyRecord<Record<string, unknown>>>> {
    const unresolved = this.db
      .selectFrom("notifications")
      .where("account_id", "=", accountId)
      .where("resolved", "is", null)
      .where((eb) => eb.or([eb("until", "is", null), eb("until", ">", now)]));
    return countedBodies(unresolved, slice, sql`${sql.ref("notifications.id")}`);
  }

  async resolveNotification(accountId: number, id: number, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable("notifications")
      .set({ resolved: at })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .where("resolved", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

export const noticeRepos = (handle: Handle<AccountTables>) => ({ notices: new Notices(handle) });
