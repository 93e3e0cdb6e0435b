/**
 * The Kysely repositories of the rest of the profile area: OAuth clients and their
 * authorizations (apps), trusted devices, logins, phone codes, security answers, two-factor
 * secrets, preferences and grants. "Upserts" are a delete then an insert, which every
 * dialect runs the same way; callers run them inside a transaction.
 */
import type { Kysely } from "kysely";
import type { Database, LoginsTable } from "./tables";
import type {
  DeviceRecord,
  DeviceRepo,
  GrantsRepo,
  LoginRecord,
  LoginRepo,
  LoginStatus,
  NewDevice,
  NewLogin,
  NewOAuthApp,
  NewOAuthClient,
  OAuthAppRecord,
  OAuthAppRepo,
  OAuthAppView,
  OAuthClientPatch,
  OAuthClientRecord,
  OAuthClientRepo,
  PhoneCodeRecord,
  PhoneCodeRepo,
  PreferencesRepo,
  SecurityAnswerRecord,
  SecurityAnswerRepo,
  Slice,
  TfaSecretRecord,
  TfaSecretRepo,
} from "./store";
import type { Selectable } from "kysely";

const toCount = (value: string | number | bigint | undefined): number => Number(value ?? 0);

const oauthClientRecord = (row: Selectable<Database["oauth_clients"]>): OAuthClientRecord => ({
  ...row,
  public: row.public !== 0,
  status: row.status as OAuthClientRecord["status"],
});

class OAuthClients implements OAuthClientRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(client: NewOAuthClient): Promise<OAuthClientRecord> {
    const row = await this.db
      .insertInto("oauth_clients")
      .values({ ...client, public: client.public ? 1 : 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
    return oauthClientRecord(row);
  }

  async get(id: number): Promise<OAuthClientRecord | undefined> {
    const row = await this.db.selectFrom("oauth_clients").selectAll().where("id", "=", id).executeTakeFirst();
    return row && oauthClientRecord(row);
  }

  private live(accountId: number) {
    return this.db.selectFrom("oauth_clients").where("account_id", "=", accountId).where("deleted", "is", null);
  }

  async getByPublicId(publicId: string, accountId?: number): Promise<OAuthClientRecord | undefined> {
    let query = this.db.selectFrom("oauth_clients").selectAll().where("public_id", "=", publicId).where("deleted", "is", null);
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const row = await query.executeTakeFirst();
    return row && oauthClientRecord(row);
  }

  async count(accountId: number): Promise<number> {
    const row = await this.live(accountId)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  async list(accountId: number, slice: Slice): Promise<OAuthClientRecord[]> {
    const rows = await this.live(accountId).selectAll().orderBy("id").limit(slice.limit).offset(slice.offset).execute();
    return rows.map(oauthClientRecord);
  }

  async update(id: number, patch: OAuthClientPatch): Promise<OAuthClientRecord | undefined> {
    const { public: isPublic, ...rest } = patch;
    // A key present with an undefined value changes nothing (and would make an empty SET).
    const values = Object.fromEntries(
      Object.entries({ ...rest, ...(isPublic === undefined ? {} : { public: isPublic ? 1 : 0 }) }).filter(([, v]) => v !== undefined),
    );
    if (Object.keys(values).length === 0) return this.get(id);
    const row = await this.db.updateTable("oauth_clients").set(values).where("id", "=", id).returningAll().executeTakeFirst();
    return row && oauthClientRecord(row);
  }

  async revokeApps(clientId: number, at: string): Promise<number[]> {
    const apps = await this.db.selectFrom("oauth_apps").select("id").where("client_id", "=", clientId).where("revoked", "is", null).execute();
    await this.db.updateTable("oauth_apps").set({ revoked: at }).where("client_id", "=", clientId).where("revoked", "is", null).execute();
    return apps.map((a) => a.id);
  }
}

class OAuthApps implements OAuthAppRepo {
  constructor(private readonly db: Kysely<Database>) {}

  insert(app: NewOAuthApp): Promise<OAuthAppRecord> {
    return this.db.insertInto("oauth_apps").values(app).returningAll().executeTakeFirstOrThrow();
  }

  byId(id: number): Promise<OAuthAppRecord | undefined> {
    return this.db.selectFrom("oauth_apps").selectAll().where("id", "=", id).executeTakeFirst();
  }

  private active(userId: number, now: string) {
    return this.db
      .selectFrom("oauth_apps as a")
      .innerJoin("oauth_clients as c", "c.id", "a.client_id")
      .where("a.user_id", "=", userId)
      .where("a.revoked", "is", null)
      .where((eb) => eb.or([eb("a.expiry", "is", null), eb("a.expiry", ">", now)]));
  }

  private view() {
    return ["a.id", "a.user_id", "a.client_id", "a.scopes", "a.created", "a.expiry", "a.revoked", "c.label", "c.website", "c.thumbnail_url"] as const;
  }

  getActive(userId: number, id: number, now: string): Promise<OAuthAppView | undefined> {
    return this.active(userId, now)
      .select(this.view())
      .where("a.id", "=", id)
      .executeTakeFirst();
  }

  async countActive(userId: number, now: string): Promise<number> {
    const row = await this.active(userId, now)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  listActive(userId: number, now: string, slice: Slice): Promise<OAuthAppView[]> {
    return this.active(userId, now).select(this.view()).orderBy("a.id").limit(slice.limit).offset(slice.offset).execute();
  }

  async revoke(id: number, at: string): Promise<void> {
    await this.db.updateTable("oauth_apps").set({ revoked: at }).where("id", "=", id).where("revoked", "is", null).execute();
  }
}

class Devices implements DeviceRepo {
  constructor(private readonly db: Kysely<Database>) {}

  insert(device: NewDevice): Promise<DeviceRecord> {
    return this.db.insertInto("trusted_devices").values(device).returningAll().executeTakeFirstOrThrow();
  }

  private active(userId: number, now: string) {
    return this.db
      .selectFrom("trusted_devices")
      .where("user_id", "=", userId)
      .where("revoked", "is", null)
      .where("expiry", ">", now);
  }

  getActive(userId: number, id: number, now: string): Promise<DeviceRecord | undefined> {
    return this.active(userId, now).selectAll().where("id", "=", id).executeTakeFirst();
  }

  async countActive(userId: number, now: string): Promise<number> {
    const row = await this.active(userId, now)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  listActive(userId: number, now: string, slice: Slice): Promise<DeviceRecord[]> {
    return this.active(userId, now).selectAll().orderBy("id").limit(slice.limit).offset(slice.offset).execute();
  }

  async revoke(id: number, at: string): Promise<void> {
    await this.db.updateTable("trusted_devices").set({ revoked: at }).where("id", "=", id).where("revoked", "is", null).execute();
  }
}

const loginRecord = (row: Selectable<LoginsTable>): LoginRecord => ({
  ...row,
  restricted: row.restricted !== 0,
  status: row.status as LoginStatus,
});

class Logins implements LoginRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(login: NewLogin): Promise<LoginRecord> {
    const row = await this.db
      .insertInto("logins")
      .values({ ...login, restricted: login.restricted ? 1 : 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
    return loginRecord(row);
  }

  private successful(userId: number, since: string) {
    return this.db.selectFrom("logins").where("user_id", "=", userId).where("status", "=", "successful").where("datetime", ">=", since);
  }

  async getSuccessful(userId: number, id: number, since: string): Promise<LoginRecord | undefined> {
    const row = await this.successful(userId, since).selectAll().where("id", "=", id).executeTakeFirst();
    return row && loginRecord(row);
  }

  async countSuccessful(userId: number, since: string): Promise<number> {
    const row = await this.successful(userId, since)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  async listSuccessful(userId: number, since: string, slice: Slice): Promise<LoginRecord[]> {
    const rows = await this.successful(userId, since).selectAll().orderBy("id").limit(slice.limit).offset(slice.offset).execute();
    return rows.map(loginRecord);
  }
}

class PhoneCodes implements PhoneCodeRepo {
  constructor(private readonly db: Kysely<Database>) {}

  get(userId: number): Promise<PhoneCodeRecord | undefined> {
    return this.db.selectFrom("phone_codes").selectAll().where("user_id", "=", userId).executeTakeFirst();
  }

  async put(code: PhoneCodeRecord): Promise<void> {
    await this.delete(code.user_id);
    await this.db.insertInto("phone_codes").values(code).execute();
  }

  async delete(userId: number): Promise<void> {
    await this.db.deleteFrom("phone_codes").where("user_id", "=", userId).execute();
  }
}

class SecurityAnswers implements SecurityAnswerRepo {
  constructor(private readonly db: Kysely<Database>) {}

  list(userId: number): Promise<SecurityAnswerRecord[]> {
    return this.db.selectFrom("security_answers").select(["question_id", "response"]).where("user_id", "=", userId).orderBy("question_id").execute();
  }

  async replace(userId: number, answers: SecurityAnswerRecord[]): Promise<void> {
    await this.db.deleteFrom("security_answers").where("user_id", "=", userId).execute();
    if (answers.length > 0) await this.db.insertInto("security_answers").values(answers.map((a) => ({ user_id: userId, ...a }))).execute();
  }
}

class TfaSecrets implements TfaSecretRepo {
  constructor(private readonly db: Kysely<Database>) {}

  get(userId: number): Promise<TfaSecretRecord | undefined> {
    return this.db.selectFrom("tfa_secrets").selectAll().where("user_id", "=", userId).executeTakeFirst();
  }

  async put(secret: TfaSecretRecord): Promise<void> {
    await this.delete(secret.user_id);
    await this.db.insertInto("tfa_secrets").values(secret).execute();
  }

  async delete(userId: number): Promise<void> {
    await this.db.deleteFrom("tfa_secrets").where("user_id", "=", userId).execute();
  }
}

class Preferences implements PreferencesRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async get(userId: number, clientKey: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("preferences")
      .select("body")
      .where("user_id", "=", userId)
      .where("client_key", "=", clientKey)
      .executeTakeFirst();
    return row?.body;
  }

  async put(userId: number, clientKey: number, body: string): Promise<void> {
    await this.db.deleteFrom("preferences").where("user_id", "=", userId).where("client_key", "=", clientKey).execute();
    await this.db.insertInto("preferences").values({ user_id: userId, client_key: clientKey, body }).execute();
  }
}

class Grants implements GrantsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async get(userId: number): Promise<string | undefined> {
    return (await this.db.selectFrom("grants").select("body").where("user_id", "=", userId).executeTakeFirst())?.body;
  }

  async put(userId: number, body: string): Promise<void> {
    await this.db.deleteFrom("grants").where("user_id", "=", userId).execute();
    await this.db.insertInto("grants").values({ user_id: userId, body }).execute();
  }
}

/** The profile area's repositories over one Kysely handle. */
export function profileAreaRepos(db: Kysely<Database>) {
  return {
    oauthClients: new OAuthClients(db) as OAuthClientRepo,
    oauthApps: new OAuthApps(db) as OAuthAppRepo,
    devices: new Devices(db) as DeviceRepo,
    logins: new Logins(db) as LoginRepo,
    phoneCodes: new PhoneCodes(db) as PhoneCodeRepo,
    securityAnswers: new SecurityAnswers(db) as SecurityAnswerRepo,
    tfaSecrets: new TfaSecrets(db) as TfaSecretRepo,
    preferences: new Preferences(db) as PreferencesRepo,
    grants: new Grants(db) as GrantsRepo,
  };
}
