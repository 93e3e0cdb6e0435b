/**
 * Records as contract shapes. Every answer goes through `answer`, which parses the body with
 * its contract schema: a body the contract would not accept is a server bug (500), never
 * something a client sees.
 */
import type { z } from "zod";
import type { Page, Profile, SshKey } from "../../contract";
import type { SshKeyRecord, UserRecord } from "../store/store";
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
