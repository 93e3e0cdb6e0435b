/**
 * What an account is told: region availability, maintenance and notifications. Records and
 * queries (the tables are in `./tables-store.ts`); bodies are JSON text as the API answers them.
 */
import { Repository, type Handle } from "../../store/store";
import type { AccountTables, RegionAvailabilityTable } from "./tables-store";
import { bodyRecord, type BodyRecord } from "./billing-store";

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

  async insertMaintenance(accountId: number, body: object): Promise<number> {
    const row = await this.db
      .insertInto("maintenance")
      .values({ account_id: accountId, body: JSON.stringify(body) })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async listMaintenance(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>> {
    const rows = await this.db.selectFrom("maintenance").select(["id", "body"]).where("account_id", "=", accountId).orderBy("id").execute();
    return rows.map(bodyRecord);
  }

  async insertNotification(accountId: number, body: object): Promise<number> {
    const row = await this.db
      .insertInto("notifications")
      .values({ account_id: accountId, body: JSON.stringify(body), resolved: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async listNotifications(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>> {
    const rows = await this.db
      .selectFrom("notifications")
      .select(["id", "body"])
      .where("account_id", "=", accountId)
      .where("resolved", "is", null)
      .orderBy("id")
      .execute();
    return rows.map(bodyRecord);
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
