/**
 * Accounts, users, their preferences and grants: tables, records and queries. Booleans are
 * INTEGER 0/1 and lists JSON text in the tables; records carry the real types, converted here.
 */
import type { Generated, Kysely, Selectable } from "kysely";
import { prepared } from "../../store/throughput";
import { Repository, countN, toCount, type Handle } from "../../store/store";
import type { AuthenticationType, LishAuthMethod, UserRecord, UserType } from "../../domain/records";

export interface AccountsTable {
  id: Generated<number>;
  euuid: string;
  active_since: string;
}

/**
 * The domain's `UserRecord` (src/server/domain/records.ts) in column types: booleans as INTEGER 0/1,
 * lists as JSON text, the unions as text; `userRecord` converts back.
 */
export type UsersTable = Omit<UserRecord, ColumnTyped> & {
  id: Generated<number>;
  restricted: number;
  authentication_type: string;
  authorized_keys: string | null;
  email_notifications: number;
  ip_whitelist_enabled: number;
  lish_auth_method: string;
  two_factor_auth: number;
  user_type: Generated<string>;
  sms_opt_in: Generated<number>;
};
type ColumnTyped =
  | "id"
  | "restricted"
  | "authentication_type"
  | "authorized_keys"
  | "email_notifications"
  | "ip_whitelist_enabled"
  | "lish_auth_method"
  | "two_factor_auth"
  | "user_type"
  | "sms_opt_in";

/** Preferences per (user, OAuth client); client_key 0 is "no client" (personal access tokens). */
export interface PreferencesTable {
  user_id: number;
  client_key: number;
  body: string;
}

export interface GrantsTable {
  user_id: number;
  /** The grants response as JSON. */
  body: string;
}

export interface ProfileTables {
  accounts: AccountsTable;
  users: UsersTable;
  preferences: PreferencesTable;
  grants: GrantsTable;
}

export type AccountRecord = Selectable<AccountsTable>;
export type NewAccount = Omit<AccountRecord, "id">;

export type NewUser = Omit<UserRecord, "id" | "user_type" | "sms_opt_in"> & Partial<Pick<UserRecord, "user_type" | "sms_opt_in">>;
/** The fields a profile update may change. */
export type UserPatch = Partial<
  Pick<
    UserRecord,
    | "authorized_keys"
    | "email"
    | "email_notifications"
    | "ip_whitelist_enabled"
    | "lish_auth_method"
    | "timezone"
    | "two_factor_auth"
    | "verified_phone_number"
    | "sms_opt_in"
  >
>;

const userRecord = (row: Selectable<UsersTable>): UserRecord => ({
  ...row,
  restricted: row.restricted !== 0,
  authentication_type: row.authentication_type as AuthenticationType,
  authorized_keys: row.authorized_keys === null ? null : (JSON.parse(row.authorized_keys) as string[]),
  email_notifications: row.email_notifications !== 0,
  ip_whitelist_enabled: row.ip_whitelist_enabled !== 0,
  lish_auth_method: row.lish_auth_method as LishAuthMethod,
  two_factor_auth: row.two_factor_auth !== 0,
  user_type: row.user_type as UserType,
  sms_opt_in: row.sms_opt_in !== 0,
});

const bit = (b: boolean): number => (b ? 1 : 0);

/** A new user in column types: booleans as 0/1, lists as JSON text (the insert checks it against the table). */
const newUserRow = (user: NewUser) => ({
  ...user,
  restricted: bit(user.restricted),
  authorized_keys: user.authorized_keys === null ? null : JSON.stringify(user.authorized_keys),
  email_notifications: bit(user.email_notifications),
  ip_whitelist_enabled: bit(user.ip_whitelist_enabled),
  two_factor_auth: bit(user.two_factor_auth),
  user_type: user.user_type ?? "default",
  sms_opt_in: bit(user.sms_opt_in ?? false),
});

/** Record fields in column types: booleans as 0/1, lists as JSON text; absent fields stay absent. */
function userColumns(fields: Partial<UserRecord>): Record<string, string | number | null> {
  const row: Record<string, string | number | null> = {};
  for (const [key, value] of Object.entries(fields) as Array<[string, unknown]>) {
    if (value === undefined) continue;
    if (typeof value === "boolean") row[key] = value ? 1 : 0;
    else if (Array.isArray(value)) row[key] = JSON.stringify(value);
    else row[key] = value as string | number | null;
  }
  return row;
}

/** Every authenticated request reads its user (see `../../store/throughput/prepared.ts`). */
const userById = prepared((db: Kysely<ProfileTables>, id: number) => db.selectFrom("users").selectAll().where("id", "=", id));

export class Accounts extends Repository<ProfileTables> {
  async count(): Promise<number> {
    const row = await this.db.selectFrom("accounts").select(countN).executeTakeFirst();
    return toCount(row?.n);
  }

  insert(account: NewAccount): Promise<AccountRecord> {
    return this.db.insertInto("accounts").values(account).returningAll().executeTakeFirstOrThrow();
  }

  get(id: number): Promise<AccountRecord | undefined> {
    return this.db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
  }

  byEuuid(euuid: string): Promise<AccountRecord | undefined> {
    return this.db.selectFrom("accounts").selectAll().where("euuid", "=", euuid).executeTakeFirst();
  }
}

export class Users extends Repository<ProfileTables> {
  async insert(user: NewUser): Promise<UserRecord> {
    const row = await this.db.insertInto("users").values(newUserRow(user)).returningAll().executeTakeFirstOrThrow();
    return userRecord(row);
  }

  async get(id: number): Promise<UserRecord | undefined> {
    const [row] = await userById(this.db, id);
    return row && userRecord(row);
  }

  /** The user with the lowest id: the one bootstrap created. */
  async first(): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom("users").selectAll().orderBy("id").limit(1).executeTakeFirst();
    return row && userRecord(row);
  }

  /** The ids of every user of the account. */
  async idsOf(accountId: number): Promise<number[]> {
    const rows = await this.db.selectFrom("users").select("id").where("account_id", "=", accountId).execute();
    return rows.map((r) => r.id);
  }

  /** The account's proxy user (the lowest id), if it has one. */
  async proxyOf(accountId: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom("users")
      .select("id")
      .where("account_id", "=", accountId)
      .where("user_type", "=", "proxy")
      .orderBy("id")
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }

  async update(id: number, patch: UserPatch): Promise<UserRecord | undefined> {
    const values = userColumns(patch);
    if (Object.keys(values).length === 0) return this.get(id);
    const row = await this.db.updateTable("users").set(values).where("id", "=", id).returningAll().executeTakeFirst();
    return row && userRecord(row);
  }
}

export class Preferences extends Repository<ProfileTables> {
  /** The stored JSON text, or undefined when none was stored. */
  async get(userId: number, clientKey: number): Promise<string | undefined> {
    const row = await this.db.selectFrom("preferences").select("body").where("user_id", "=", userId).where("client_key", "=", clientKey).executeTakeFirst();
    return row?.body;
  }

  /** A delete then an insert, which every dialect runs the same way; callers run it in a transaction. */
  async put(userId: number, clientKey: number, body: string): Promise<void> {
    await this.db.deleteFrom("preferences").where("user_id", "=", userId).where("client_key", "=", clientKey).execute();
    await this.db.insertInto("preferences").values({ user_id: userId, client_key: clientKey, body }).execute();
  }
}

export class Grants extends Repository<ProfileTables> {
  /** The stored grants as JSON text, or undefined when none were set. */
  async get(userId: number): Promise<string | undefined> {
    return (await this.db.selectFrom("grants").select("body").where("user_id", "=", userId).executeTakeFirst())?.body;
  }

  mark(): string | undefined {
    return this.handle.tablesMark(["users", "grants"]);
  }

  async put(userId: number, body: string): Promise<void> {
    await this.db.deleteFrom("grants").where("user_id", "=", userId).execute();
    await this.db.insertInto("grants").values({ user_id: userId, body }).execute();
  }
}

export const profileRepos = (handle: Handle<ProfileTables>) => ({
  accounts: new Accounts(handle),
  users: new Users(handle),
  preferences: new Preferences(handle),
  grants: new Grants(handle),
});
export type ProfileRepos = ReturnType<typeof profileRepos>;
