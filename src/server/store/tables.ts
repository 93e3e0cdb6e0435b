/**
 * The database as Kysely sees it: one typed interface shared by every dialect. Columns stay
 * portable: integer ids, TEXT timestamps in the wire format (`YYYY-MM-DDTHH:MM:SS`, UTC, so
 * they sort as text), booleans as INTEGER 0/1, lists as JSON TEXT.
 */
import type { Generated, Insertable, Selectable } from "kysely";
import type { OAuthTagsEventsTables } from "./tables-oauth-tags-events";

export interface AccountsTable {
  id: Generated<number>;
  euuid: string;
  active_since: string;
}

export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  username: string;
  email: string;
  restricted: number;
  authentication_type: string;
  authorized_keys: string | null;
  email_notifications: number;
  ip_whitelist_enabled: number;
  lish_auth_method: string;
  timezone: string;
  two_factor_auth: number;
  verified_phone_number: string | null;
  referral_code: string;
  created: string;
  /** `default` or `proxy` (a parent-account user acting in a child account). Added by 0002. */
  user_type: Generated<string>;
  /** Opted in to SMS by requesting a phone code; out by deleting the number. Added by 0002. */
  sms_opt_in: Generated<number>;
}

export interface TokensTable {
  id: Generated<number>;
  user_id: number;
  label: string;
  scopes: string;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  token_hash: string;
  /** The first 16 characters, for display. */
  token_prefix: string;
  created: string;
  expiry: string | null;
  revoked: string | null;
  /** The OAuth authorization an OAuth token belongs to; null for a personal access token. Added by 0002. */
  app_id: Generated<number | null>;
}

export interface SshKeysTable {
  id: Generated<number>;
  user_id: number;
  label: string;
  ssh_key: string;
  created: string;
}

export interface OAuthClientsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  /** SHA-256 of the client secret, hex. */
  secret_hash: string;
  website: string;
  thumbnail_url: string | null;
  created: string;
  /** Added by 0004: the public client id (20 hex characters), `public`, `redirect_uri`, `status`, deletion time. */
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

/** The one pending phone verification of a user. */
export interface PhoneCodesTable {
  user_id: number;
  iso_code: string;
  phone_number: string;
  code: string;
  sent: string;
  expiry: string;
}

export interface SecurityAnswersTable {
  user_id: number;
  question_id: number;
  response: string;
}

/** A user's two-factor secret: pending (confirmed null) until confirmed. */
export interface TfaSecretsTable {
  user_id: number;
  secret: string;
  expiry: string;
  confirmed: string | null;
  scratch_hash: string | null;
}

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

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  tokens: TokensTable;
  ssh_keys: SshKeysTable;
  oauth_clients: OAuthClientsTable;
  oauth_apps: OAuthAppsTable;
  trusted_devices: TrustedDevicesTable;
  logins: LoginsTable;
  phone_codes: PhoneCodesTable;
  security_answers: SecurityAnswersTable;
  tfa_secrets: TfaSecretsTable;
  preferences: PreferencesTable;
  grants: GrantsTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type TokenRow = Selectable<TokensTable>;
export type SshKeyRow = Selectable<SshKeysTable>;

/** The tables of 0004 (`tables-oauth-tags-events.ts`), merged into `Database`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database extends OAuthTagsEventsTables {}
