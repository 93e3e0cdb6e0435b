/** Trusted devices and logins of users: tables, records and queries. */
import type { Generated, Selectable } from "kysely";
import { Repository, countN, counted, totalOver, type Counted, type Handle, type Slice } from "../../store/store";
import type { ProfileTables } from "../profile/store";

export interface TrustedDevicesTable {
  id: Generated<number>;
  user_id: number;
  created: string;
  expiry: string;
  last_authenticated: string;
  last_remote_addr: string;
  user_agent: string;
  revoked: string | null;
}

export interface LoginsTable {
  id: Generated<number>;
  user_id: number;
  datetime: string;
  ip: string;
  restricted: number;
  status: string;
  username: string;
}

export interface SessionTables {
  trusted_devices: TrustedDevicesTable;
  logins: LoginsTable;
}

/** The account's logins are found through its users. */
type Tables = SessionTables & Pick<ProfileTables, "users">;

export type DeviceRecord = Selectable<TrustedDevicesTable>;
export type NewDevice = Omit<DeviceRecord, "id" | "revoked">;

export type LoginStatus = "successful" | "failed";
export type LoginRecord = Omit<Selectable<LoginsTable>, "restricted" | "status"> & { restricted: boolean; status: LoginStatus };
export type NewLogin = Omit<LoginRecord, "id">;

const loginRecord = ({ restricted, status, ...row }: Selectable<LoginsTable>): LoginRecord => ({
  ...row,
  restricted: restricted !== 0,
  status: status as LoginStatus,
});

export class Devices extends Repository<Tables> {
  insert(device: NewDevice): Promise<DeviceRecord> {
    return this.db.insertInto("trusted_devices").values(device).returningAll().executeTakeFirstOrThrow();
  }

  /** Devices of the user neither revoked nor expired at `now`. */
  private active(userId: number, now: string) {
    return this.db.selectFrom("trusted_devices").where("user_id", "=", userId).where("revoked", "is", null).where("expiry", ">", now);
  }

  getActive(userId: number, id: number, now: string): Promise<DeviceRecord | undefined> {
    return this.active(userId, now).selectAll().where("id", "=", id).executeTakeFirst();
  }

  listActive(userId: number, now: string, slice: Slice): Promise<Counted<DeviceRecord>> {
    return counted(
      slice,
      () => this.active(userId, now).selectAll().select(totalOver()).orderBy("id").limit(slice.limit).offset(slice.offset).execute(),
      () => this.active(userId, now).select(countN).executeTakeFirst(),
      ({ total: _, ...device }) => device,
    );
  }

  async revoke(id: number, at: string): Promise<void> {
    await this.db.updateTable("trusted_devices").set({ revoked: at }).where("id", "=", id).where("revoked", "is", null).execute();
  }
}

export class Logins extends Repository<Tables> {
  async insert(login: NewLogin): Promise<LoginRecord> {
    const row = await this.db
      .insertInto("logins")
      .values({ ...login, restricted: login.restricted ? 1 : 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
    return loginRecord(row);
  }

  /** Successful logins of the user at or after `since`. */
  private successful(userId: number, since: string) {
    return this.db.selectFrom("logins").where("user_id", "=", userId).where("status", "=", "successful").where("datetime", ">=", since);
  }

  async getSuccessful(userId: number, id: number, since: string): Promise<LoginRecord | undefined> {
    const row = await this.successful(userId, since).selectAll().where("id", "=", id).executeTakeFirst();
    return row && loginRecord(row);
  }

  listSuccessful(userId: number, since: string, slice: Slice): Promise<Counted<LoginRecord>> {
    return counted(
      slice,
      () => this.successful(userId, since).selectAll().select(totalOver()).orderBy("id").limit(slice.limit).offset(slice.offset).execute(),
      () => this.successful(userId, since).select(countN).executeTakeFirst(),
      ({ total: _, ...row }) => loginRecord(row),
    );
  }

  /** Logins (any status) of every user of the account at or after `since`. */
  private ofAccount(accountId: number, since: string) {
    return this.db
      .selectFrom("logins as l")
      .innerJoin("users as u", "u.id", "l.user_id")
      .where("u.account_id", "=", accountId)
      .where("l.datetime", ">=", since);
  }

  /** One slice of those, by id, with their count: the window and the page are the query's. */
  pageOfAccount(accountId: number, since: string, slice: Slice): Promise<Counted<LoginRecord>> {
    return counted(
      slice,
      () => this.ofAccount(accountId, since).selectAll("l").select(totalOver()).orderBy("l.id").limit(slice.limit).offset(slice.offset).execute(),
      () => this.ofAccount(accountId, since).select(countN).executeTakeFirst(),
      ({ total: _, ...row }) => loginRecord(row),
    );
  }

  async getOfAccount(accountId: number, id: number, since: string): Promise<LoginRecord | undefined> {
    const row = await this.ofAccount(accountId, since).selectAll("l").where("l.id", "=", id).executeTakeFirst();
    return row && loginRecord(row);
  }
}

export const sessionRepos = (handle: Handle<Tables>) => ({ devices: new Devices(handle), logins: new Logins(handle) });
export type SessionRepos = ReturnType<typeof sessionRepos>;
