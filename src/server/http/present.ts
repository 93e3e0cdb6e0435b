/**
 * Records as contract shapes. Every answer goes through `answer`, which parses the body with
 * its contract schema: a body the contract would not accept is a server bug (500), never
 * something a client sees.
 */
import type { z } from "zod";
import type { AuthorizedApp, Login, Page, PersonalAccessToken, Profile, SshKey, TrustedDevice } from "../../contract";
import type { DeviceRecord, LoginRecord, OAuthAppView, SshKeyRecord, TokenRecord, UserRecord } from "../domain";
import type { Answer } from "./router";

export function answer<S extends z.ZodType>(schema: S, value: z.input<S>, status = 200): Answer {
  return { status, body: schema.parse(value) };
}

export const pageView = <R, V>(page: Page<R>, view: (record: R) => V): Page<V> => ({ ...page, data: page.data.map(view) });

/** Where referral links point (the contract shows no host). */
export const REFERRAL_URL_BASE = "https://www.example.com/?r=";

export const profileView = (user: UserRecord): Profile => ({
  authentication_type: user.authentication_type,
  authorized_keys: user.authorized_keys,
  email: user.email,
  email_notifications: user.email_notifications,
  ip_whitelist_enabled: user.ip_whitelist_enabled,
  lish_auth_method: user.lish_auth_method,
  referrals: { code: user.referral_code, url: REFERRAL_URL_BASE + user.referral_code, completed: 0, credit: 0, pending: 0, total: 0 },
  restricted: user.restricted,
  timezone: user.timezone,
  two_factor_auth: user.two_factor_auth,
  uid: user.id,
  username: user.username,
  verified_phone_number: user.verified_phone_number,
});

export const sshKeyView = (key: SshKeyRecord): SshKey => ({ id: key.id, label: key.label, ssh_key: key.ssh_key, created: key.created });

export const tokenView = (token: TokenRecord, fullValue?: string): PersonalAccessToken => ({
  id: token.id,
  label: token.label,
  scopes: token.scopes,
  created: token.created,
  expiry: token.expiry,
  token: fullValue ?? token.token_prefix,
});

export const appView = (app: OAuthAppView): AuthorizedApp => ({
  id: app.id,
  label: app.label,
  scopes: app.scopes,
  website: app.website,
  thumbnail_url: app.thumbnail_url,
  created: app.created,
  expiry: app.expiry,
});

export const deviceView = (d: DeviceRecord): TrustedDevice => ({
  id: d.id,
  created: d.created,
  expiry: d.expiry,
  last_authenticated: d.last_authenticated,
  last_remote_addr: d.last_remote_addr,
  user_agent: d.user_agent,
});

export const loginView = (l: LoginRecord): Login => ({
  id: l.id,
  datetime: l.datetime,
  ip: l.ip,
  restricted: l.restricted,
  status: l.status,
  username: l.username,
});
