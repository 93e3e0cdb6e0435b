/** The acting user's profile (`/profile`). */
import { z } from "zod";
import { ruled } from "./common";
import { LISH_AUTH_METHODS } from "./enums";
import { email, sshPublicKeyText, timeZone } from "./field-rules";

export const AUTHENTICATION_TYPES = ["password", "idp"] as const;

export const Referrals = z.object({
  code: z.string(),
  completed: z.number(),
  credit: z.number(),
  pending: z.number(),
  total: z.number(),
  url: z.string(),
});

export const Profile = z.object({
  authentication_type: z.enum(AUTHENTICATION_TYPES),
  authorized_keys: z.array(z.string()).nullable(),
  email: z.string(),
  email_notifications: z.boolean(),
  ip_whitelist_enabled: z.boolean(),
  lish_auth_method: z.enum(LISH_AUTH_METHODS),
  referrals: Referrals,
  restricted: z.boolean(),
  timezone: z.string(),
  two_factor_auth: z.boolean(),
  uid: z.number().int(),
  username: z.string(),
  /**
   * Not in the seeds' Profile table; upstream's answers have it (linodego's and
   * linode_api4-python's recorded profiles): `default`, or `parent`, `child`, `proxy`.
   */
  user_type: z.enum(["default", "parent", "child", "proxy"]),
  verified_phone_number: z.string().nullable(),
});
export type Profile = z.infer<typeof Profile>;

/**
 * `PUT /profile`: every field optional; read-only fields sent back (uid, username,
 * referrals...) are ignored. Rules that depend on the stored profile (ip_whitelist_enabled
 * cannot be turned on, restricted and two_factor_auth cannot change here, a proxy user's
 * email cannot change) are the server's.
 */
export const ProfileUpdate = z.object({
  authorized_keys: z.array(ruled(sshPublicKeyText)).nullable().optional(),
  email: ruled(email).optional(),
  email_notifications: z.boolean().optional(),
  ip_whitelist_enabled: z.boolean().optional(),
  lish_auth_method: z.enum(LISH_AUTH_METHODS).optional(),
  restricted: z.boolean().optional(),
  timezone: ruled(timeZone).optional(),
  two_factor_auth: z.boolean().optional(),
});
export type ProfileUpdate = z.input<typeof ProfileUpdate>;
