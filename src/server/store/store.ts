/**
 * The store as the domain sees it: records and the operations on them, no SQL. One
 * implementation runs on Kysely (`KyselyStore`), so SQLite today and Postgres later share it.
 * Lists take a slice (limit/offset) and have a matching count, or answer the count with the
 * slice (`Counted`); page math is the domain's.
 */
import type { OAuthTagsEventsStore } from "./oauth-tags-events";
import type { Database } from "./tables";

/**
 * The largest id any store holds: Postgres ids are `integer` (32-bit), and SQLite, whose are
 * wider, never assigns one past it either. A larger id names nothing, on both stores alike.
 */
export const MAX_ID = 2_147_483_647;

/** Whether `id` can name a row: a positive integer within `MAX_ID`. */
export const isStorableId = (id: number): boolean => Number.isInteger(id) && id >= 1 && id <= MAX_ID;

export type AuthenticationType = "password" | "idp";
export type LishAuthMethod = "password_keys" | "keys_only" | "disabled";

export interface AccountRecord {
  id: number;
  euuid: string;
  active_since: string;
}
export type NewAccount = Omit<AccountRecord, "id">;

export interface UserRecord {
  id: number;
  account_id: number;
  username: string;
  email: string;
  restricted: boolean;
  authentication_type: AuthenticationType;
  authorized_keys: string[] | null;
  email_notifications: boolean;
  ip_whitelist_enabled: boolean;
  lish_auth_method: LishAuthMethod;
  timezone: string;
  two_factor_auth: boolean;
  verified_phone_number: string | null;
  referral_code: string;
  created: string;
  /** `proxy`: a parent-account user acting in a child account. */
  user_type: UserType;
  sms_opt_in: boolean;
}
export type UserType = "default" | "proxy";
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

export interface TokenRecord {
  id: number;
  user_id: number;
  label: string;
  scopes: string;
  token_hash: string;
  token_prefix: string;
  created: string;
  expiry: string | null;
  revoked: string | null;
  /** The authorized app (OAuth authorization) of an OAuth token; null for a personal access token. */
  app_id: number | null;
}
export type NewToken = Omit<TokenRecord, "id" | "revoked" | "app_id"> & { app_id?: number | null };

export interface SshKeyRecord {
  id: number;
  user_id: number;
  label: string;
  ssh_key: string;
  created: string;
}
export type NewSshKey = Omit<SshKeyRecord, "id">;

export interface OAuthClientRecord {
  id: number;
  account_id: number;
  label: string;
  secret_hash: string;
  website: string;
  thumbnail_url: string | null;
  created: string;
  /** Added by 0004: the public client id (what the API calls `id`), `public`, `redirect_uri`, `status`; `deleted` when deleted. */
  public_id: string;
  public: boolean;
  redirect_uri: string;
  status: "active" | "disabled" | "suspended";
  deleted: string | null;
}
export type NewOAuthClient = Omit<OAuthClientRecord, "id">;
export type OAuthClientPatch = Partial<Pick<OAuthClientRecord, "label" | "public" | "redirect_uri" | "secret_hash" | "thumbnail_url" | "deleted">>;

export interface OAuthAppRecord {
  id: number;
  user_id: number;
  client_id: number;
  scopes: string;
  created: string;
  expiry: string | null;
  revoked: string | null;
}
export type NewOAuthApp = Omit<OAuthAppRecord, "id" | "revoked">;
/** An app with what the authorized-app view shows of its client. */
export interface OAuthAppView extends OAuthAppRecord {
  label: string;
  website: string;
  thumbnail_url: string | null;
}

export interface DeviceRecord {
  id: number;
  user_id: number;
  created: string;
  expiry: string;
  last_authenticated: string;
  last_remote_addr: string;
  user_agent: string;
  revoked: string | null;
}
export type NewDevice = Omit<DeviceRecord, "id" | "revoked">;

export type LoginStatus = "successful" | "failed";
export interface LoginRecord {
  id: number;
  user_id: number;
  datetime: string;
  ip: string;
  restricted: boolean;
  status: LoginStatus;
  username: string;
}
export type NewLogin = Omit<LoginRecord, "id">;

export interface PhoneCodeRecord {
  user_id: number;
  iso_code: string;
  phone_number: string;
  code: string;
  sent: string;
  expiry: string;
}

export interface SecurityAnswerRecord {
  question_id: number;
  response: string;
}

export interface TfaSecretRecord {
  user_id: number;
  secret: string;
  expiry: string;
  confirmed: string | null;
  scratch_hash: string | null;
}

export interface Slice {
  limit: number;
  offset: number;
}

/** A table of the store, by its SQL name. */
export type TableName = keyof Database;

/** A slice and the size of the whole collection, as of one moment (no transaction needed). */
export interface Counted<T> {
  rows: T[];
  total: number;
}

export interface AccountRepo {
  count(): Promise<number>;
  insert(account: NewAccount): Promise<AccountRecord>;
  get(id: number): Promise<AccountRecord | undefined>;
}

export interface UserRepo {
  insert(user: NewUser): Promise<UserRecord>;
  get(id: number): Promise<UserRecord | undefined>;
  /** The user with the lowest id: the one bootstrap created. */
  first(): Promise<UserRecord | undefined>;
  update(id: number, patch: UserPatch): Promise<UserRecord | undefined>;
}

export interface TokenRepo {
  insert(token: NewToken): Promise<TokenRecord>;
  findByHash(hash: string): Promise<TokenRecord | undefined>;
  /** A personal access token of the user (OAuth tokens are not looked up here). */
  get(userId: number, id: number): Promise<TokenRecord | undefined>;
  revoke(id: number, at: string): Promise<void>;
  /** Personal access tokens of the user that are neither revoked nor expired at `now`. */
  countActive(userId: number, now: string): Promise<number>;
  listActive(userId: number, now: string, slice: Slice): Promise<TokenRecord[]>;
  updateLabel(id: number, label: string): Promise<TokenRecord | undefined>;
  revokeByApp(appId: number, at: string): Promise<void>;
}

export interface OAuthClientRepo {
  insert(client: NewOAuthClient): Promise<OAuthClientRecord>;
  get(id: number): Promise<OAuthClientRecord | undefined>;
  /** Added by 0004: a client that is not deleted, by public id (in the account, when given). */
  getByPublicId(publicId: string, accountId?: number): Promise<OAuthClientRecord | undefined>;
  /** Clients of the account that are not deleted, ordered by id. */
  count(accountId: number): Promise<number>;
  list(accountId: number, slice: Slice): Promise<OAuthClientRecord[]>;
  update(id: number, patch: OAuthClientPatch): Promise<OAuthClientRecord | undefined>;
  /** Revokes every app (authorization) of the client; returns their ids. */
  revokeApps(clientId: number, at: string): Promise<number[]>;
}

export interface OAuthAppRepo {
  insert(app: NewOAuthApp): Promise<OAuthAppRecord>;
  /** Any app by id, active or not (authentication checks it). */
  byId(id: number): Promise<OAuthAppRecord | undefined>;
  /** Apps of the user neither revoked nor expired at `now`. */
  getActive(userId: number, id: number, now: string): Promise<OAuthAppView | undefined>;
  countActive(userId: number, now: string): Promise<number>;
  listActive(userId: number, now: string, slice: Slice): Promise<OAuthAppView[]>;
  revoke(id: number, at: string): Promise<void>;
}

export interface DeviceRepo {
  insert(device: NewDevice): Promise<DeviceRecord>;
  /** Devices of the user neither revoked nor expired at `now`. */
  getActive(userId: number, id: number, now: string): Promise<DeviceRecord | undefined>;
  countActive(userId: number, now: string): Promise<number>;
  listActive(userId: number, now: string, slice: Slice): Promise<DeviceRecord[]>;
  revoke(id: number, at: string): Promise<void>;
}

export interface LoginRepo {
  insert(login: NewLogin): Promise<LoginRecord>;
  /** Successful logins of the user at or after `since`. */
  getSuccessful(userId: number, id: number, since: string): Promise<LoginRecord | undefined>;
  countSuccessful(userId: number, since: string): Promise<number>;
  listSuccessful(userId: number, since: string, slice: Slice): Promise<LoginRecord[]>;
}

export interface PhoneCodeRepo {
  get(userId: number): Promise<PhoneCodeRecord | undefined>;
  put(code: PhoneCodeRecord): Promise<void>;
  delete(userId: number): Promise<void>;
}

export interface SecurityAnswerRepo {
  list(userId: number): Promise<SecurityAnswerRecord[]>;
  /** Replaces every answer of the user. */
  replace(userId: number, answers: SecurityAnswerRecord[]): Promise<void>;
}

export interface TfaSecretRepo {
  get(userId: number): Promise<TfaSecretRecord | undefined>;
  put(secret: TfaSecretRecord): Promise<void>;
  delete(userId: number): Promise<void>;
}

export interface PreferencesRepo {
  /** The stored JSON text, or undefined when none was stored. */
  get(userId: number, clientKey: number): Promise<string | undefined>;
  put(userId: number, clientKey: number, body: string): Promise<void>;
}

export interface GrantsRepo {
  /** The stored grants as JSON text, or undefined when none were set. */
  get(userId: number): Promise<string | undefined>;
  put(userId: number, body: string): Promise<void>;
}

export interface SshKeyRepo {
  insert(key: NewSshKey): Promise<SshKeyRecord>;
  get(userId: number, id: number): Promise<SshKeyRecord | undefined>;
  count(userId: number): Promise<number>;
  /** Ordered by id. */
  list(userId: number, slice: Slice): Promise<Counted<SshKeyRecord>>;
  updateLabel(userId: number, id: number, label: string): Promise<SshKeyRecord | undefined>;
  delete(userId: number, id: number): Promise<boolean>;
}

export interface Store {
  readonly accounts: AccountRepo;
  readonly users: UserRepo;
  readonly tokens: TokenRepo;
  readonly sshKeys: SshKeyRepo;
  readonly oauthClients: OAuthClientRepo;
  readonly oauthApps: OAuthAppRepo;
  readonly devices: DeviceRepo;
  readonly logins: LoginRepo;
  readonly phoneCodes: PhoneCodeRepo;
  readonly securityAnswers: SecurityAnswerRepo;
  readonly tfaSecrets: TfaSecretRepo;
  readonly preferences: PreferencesRepo;
  readonly grants: GrantsRepo;
  /** The account/billing area (`./billing.ts`, migration 0003). */
  readonly billing: import("./billing").BillingRepo;
  /** Runs `fn` atomically; inside a transaction, runs it in that transaction. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  /** Empties every table and restarts ids (the admin namespace's reset). Optional for a store. */
  wipe?(): Promise<void>;
  /** Every row of every table, comparable between two states (tests that check nothing changed). Optional. */
  dump?(): Promise<Record<string, string[]>>;
  /** A value that changes whenever a transaction may have written, so that equal marks need no dumps compared. Optional. */
  changeMark?(): Promise<string>;
  /**
   * A value that changes whenever any of `tables` may have changed, by this process or another
   * (directly or by a cascade); undefined when the store cannot tell, so nothing read from them
   * may be remembered between requests. What was read while the mark stays the same is still true.
   */
  tablesMark(tables: readonly TableName[]): string | undefined;
  close(): Promise<void>;
}

/** The repositories of 0004 (`oauth-tags-events.ts`), merged into `Store`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Store extends OAuthTagsEventsStore {}
