/** OAuth clients, their authorizations by users (authorized apps) and thumbnails: tables, records, queries. */
import type { Generated, Selectable } from "kysely";
import { Repository, countN, counted, totalOver, type Counted, type Handle, type Slice } from "../../store/store";
import type { ProfileTables } from "../profile/store";
import type { TokenTables } from "../tokens/store";

export interface OAuthClientsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  /** SHA-256 of the client secret, hex. */
  secret_hash: string;
  website: string;
  thumbnail_url: string | null;
  created: string;
  /** The public client id (20 hex characters); then `public`, `redirect_uri`, `status` and the deletion time. */
  public_id: Generated<string>;
  public: Generated<number>;
  redirect_uri: Generated<string>;
  status: Generated<string>;
  deleted: Generated<string | null>;
}

/** One authorization of an OAuth client by a user: an "authorized app". */
export interface OAuthAppsTable {
  id: Generated<number>;
  user_id: number;
  client_id: number;
  scopes: string;
  created: string;
  expiry: string | null;
  revoked: string | null;
}

export interface OAuthThumbnailsTable {
  client_id: number;
  content_type: string;
  /** The image bytes, base64. */
  data: string;
}

export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_apps: OAuthAppsTable;
  oauth_thumbnails: OAuthThumbnailsTable;
}

export type OAuthClientRecord = Omit<Selectable<OAuthClientsTable>, "public"> & {
  public: boolean;
};
export type NewOAuthClient = Omit<OAuthClientRecord, "id">;
export type OAuthClientPatch = Partial<Pick<OAuthClientRecord, "label" | "public" | "redirect_uri" | "secret_hash" | "thumbnail_url" | "deleted">>;

export type OAuthAppRecord = Selectable<OAuthAppsTable>;
export type NewOAuthApp = Omit<OAuthAppRecord, "id" | "revoked">;
/** An app with what the authorized-app view shows of its client. */
export type OAuthAppView = OAuthAppRecord & Pick<OAuthClientRecord, "label" | "website" | "thumbnail_url">;

/** The uploaded thumbnail of an OAuth client. */
export interface ThumbnailRecord {
  client_id: number;
  content_type: string;
  data: Buffer;
}

const clientRecord = ({ public: isPublic, ...row }: Selectable<OAuthClientsTable>): OAuthClientRecord => ({ ...row, public: isPublic !== 0 });

/** Record fields in column types; a field present with an undefined value changes nothing (and would make an empty SET). */
function clientColumns(fields: OAuthClientPatch): Record<string, string | number | null> {
  const { public: isPublic, ...rest } = fields;
  const values = { ...rest, ...(isPublic === undefined ? {} : { public: isPublic ? 1 : 0 }) };
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<string, string | number | null>;
}

/** What the area's queries read: its tables, and those a bearer token's lookup reads with them (`OAuthApps.lookupMark`). */
type Tables = OAuthTables & TokenTables & Pick<ProfileTables, "users">;

export class OAuthClients extends Repository<Tables> {
  async insert(client: NewOAuthClient): Promise<OAuthClientRecord> {
    const row = await this.db
      .insertInto("oauth_clients")
      .values({ ...client, public: client.public ? 1 : 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
    return clientRecord(row);
  }

  async get(id: number): Promise<OAuthClientRecord | undefined> {
    const row = await this.db.selectFrom("oauth_clients").selectAll().where("id", "=", id).executeTakeFirst();
    return row && clientRecord(row);
  }

  private live(accountId: number) {
    return this.db.selectFrom("oauth_clients").where("account_id", "=", accountId).where("deleted", "is", null);
  }

  /** A client that is not deleted, by public id (in the account, when given). */
  async getByPublicId(publicId: string, accountId?: number): Promise<OAuthClientRecord | undefined> {
    let query = this.db.selectFrom("oauth_clients").selectAll().where("public_id", "=", publicId).where("deleted", "is", null);
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const row = await query.executeTakeFirst();
    return row && clientRecord(row);
  }

  /** Clients of the account that are not deleted, ordered by id. */
  list(accountId: number, slice: Slice): Promise<Counted<OAuthClientRecord>> {
    return counted(
      slice,
      () => this.live(accountId).selectAll().select(totalOver()).orderBy("id").limit(slice.limit).offset(slice.offset).execute(),
      () => this.live(accountId).select(countN).executeTakeFirst(),
      ({ total: _, ...row }) => clientRecord(row),
    );
  }

  async update(id: number, patch: OAuthClientPatch): Promise<OAuthClientRecord | undefined> {
    const values = clientColumns(patch);
    if (Object.keys(values).length === 0) return this.get(id);
    const row = await this.db.updateTable("oauth_clients").set(values).where("id", "=", id).returningAll().executeTakeFirst();
    return row && clientRecord(row);
  }

  /** Revokes every app (authorization) of the client; returns their ids. */
  async revokeApps(clientId: number, at: string): Promise<number[]> {
    const apps = await this.db.selectFrom("oauth_apps").select("id").where("client_id", "=", clientId).where("revoked", "is", null).execute();
    await this.db.updateTable("oauth_apps").set({ revoked: at }).where("client_id", "=", clientId).where("revoked", "is", null).execute();
    return apps.map((a) => a.id);
  }
}

export class OAuthApps extends Repository<Tables> {
  insert(app: NewOAuthApp): Promise<OAuthAppRecord> {
    return this.db.insertInto("oauth_apps").values(app).returningAll().executeTakeFirstOrThrow();
  }

  /**
   * Stays the same while no bearer token's lookup can answer differently: tokens, their users and the
   * apps of OAuth tokens unchanged (what `../../auth/authenticate.ts` reads). Here because an OAuth
   * token's lookup is the one that reads all three.
   */
  lookupMark(): string | undefined {
    return this.handle.tablesMark(["tokens", "oauth_apps", "users"]);
  }

  /** Any app by id, active or not (authentication checks it). */
  byId(id: number): Promise<OAuthAppRecord | undefined> {
    return this.db.selectFrom("oauth_apps").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** Apps of the user neither revoked nor expired at `now`. */
  private active(userId: number, now: string) {
    return this.db
      .selectFrom("oauth_apps as a")
      .innerJoin("oauth_clients as c", "c.id", "a.client_id")
      .where("a.user_id", "=", userId)
      .where("a.revoked", "is", null)
      .where((eb) => eb.or([eb("a.expiry", "is", null), eb("a.expiry", ">", now)]));
  }

  private static readonly VIEW = [
    "a.id",
    "a.user_id",
    "a.client_id",
    "a.scopes",
    "a.created",
    "a.expiry",
    "a.revoked",
    "c.label",
    "c.website",
    "c.thumbnail_url",
  ] as const;

  getActive(userId: number, id: number, now: string): Promise<OAuthAppView | undefined> {
    return this.active(userId, now).select(OAuthApps.VIEW).where("a.id", "=", id).executeTakeFirst();
  }

  listActive(userId: number, now: string, slice: Slice): Promise<Counted<OAuthAppView>> {
    return counted(
      slice,
      () => this.active(userId, now).select(OAuthApps.VIEW).select(totalOver()).orderBy("a.id").limit(slice.limit).offset(slice.offset).execute(),
      () => this.active(userId, now).select(countN).executeTakeFirst(),
      ({ total: _, ...app }) => app,
    );
  }

  async revoke(id: number, at: string): Promise<void> {
    await this.db.updateTable("oauth_apps").set({ revoked: at }).where("id", "=", id).where("revoked", "is", null).execute();
  }
}

export class Thumbnails extends Repository<Tables> {
  async get(clientId: number): Promise<ThumbnailRecord | undefined> {
    const row = await this.db.selectFrom("oauth_thumbnails").selectAll().where("client_id", "=", clientId).executeTakeFirst();
    return row && { client_id: row.client_id, content_type: row.content_type, data: Buffer.from(row.data, "base64") };
  }

  async put(t: ThumbnailRecord): Promise<void> {
    await this.db.deleteFrom("oauth_thumbnails").where("client_id", "=", t.client_id).execute();
    await this.db
      .insertInto("oauth_thumbnails")
      .values({ client_id: t.client_id, content_type: t.content_type, data: t.data.toString("base64") })
      .execute();
  }
}

export const oauthRepos = (handle: Handle<Tables>) => ({
  oauthClients: new OAuthClients(handle),
  oauthApps: new OAuthApps(handle),
  thumbnails: new Thumbnails(handle),
});
export type OAuthRepos = ReturnType<typeof oauthRepos>;
