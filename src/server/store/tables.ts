/**
 * The database as Kysely sees it: one typed interface shared by every dialect. Columns stay
 * portable: integer ids, TEXT timestamps in the wire format (`YYYY-MM-DDTHH:MM:SS`, UTC, so
 * they sort as text), booleans as INTEGER 0/1, lists as JSON TEXT.
 */
import type { Generated, Insertable, Selectable } from "kysely";

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
}

export interface SshKeysTable {
  id: Generated<number>;
  user_id: number;
  label: string;
  ssh_key: string;
  created: string;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  tokens: TokensTable;
  ssh_keys: SshKeysTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type TokenRow = Selectable<TokensTable>;
export type SshKeyRow = Selectable<SshKeysTable>;
