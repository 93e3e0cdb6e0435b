/**
 * The records the domain kernel itself speaks of: who acts (a user) and with what (a token), and
 * what an event is about (an entity, `./event-entities.ts`).
 * They are the domain's vocabulary, so they live here and the areas that store them
 * (`../areas/profile/store.ts`, `../areas/tokens/store.ts`) build their rows from them: the
 * kernel never imports an area (eslint.config.mjs).
 */

export type AuthenticationType = "password" | "idp";
export type LishAuthMethod = "password_keys" | "keys_only" | "disabled";
/** `proxy`: a parent-account user acting in a child account. */
export type UserType = "default" | "proxy";

/** A user: its columns in their real types (the table keeps booleans as 0/1 and lists as JSON text). */
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
  user_type: UserType;
  /** Opted in to SMS by requesting a phone code; out by deleting the number. */
  sms_opt_in: boolean;
}

/** A personal access token or an OAuth token, as stored: the table's columns are exactly these. */
export interface TokenRecord {
  id: number;
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
  /** The OAuth authorization (authorized app) an OAuth token belongs to; null for a personal access token. */
  app_id: number | null;
}

/** What an event is about (`entity`, `secondary_entity` on the wire); the events area stores it as JSON text. */
export interface EventEntity {
  id: number | string;
  label: string;
  type: string;
  url: string;
}
