/** The acting user's profile (`/profile`). */
import { z } from "zod";
import { parseSshPublicKey } from "./sshkey-format";

export const AUTHENTICATION_TYPES = ["password", "idp"] as const;
export const LISH_AUTH_METHODS = ["password_keys", "keys_only", "disabled"] as const;

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
  verified_phone_number: z.string().nullable(),
});
export type Profile = z.infer<typeof Profile>;

export const EMAIL_MAX = 128;

/** Whether `name` is a time zone the runtime knows (IANA names, plus `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name === "" || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * `PUT /profile`: every field optional; read-only fields sent back (uid, username,
 * referrals...) are ignored. Rules that depend on the stored profile (ip_whitelist_enabled
 * cannot be turned on, restricted and two_factor_auth cannot change here, a proxy user's
 * email cannot change) are the server's.
 */
export const ProfileUpdate = z.object({
  authorized_keys: z
    .array(
      z.string().superRefine((text, ctx) => {
        const parsed = parseSshPublicKey(text);
        if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.reason });
      }),
    )
    .nullable()
    .optional(),
  email: z.email("Must be a valid email address").max(EMAIL_MAX, `Length must be ${EMAIL_MAX} characters or less.`).optional(),
  email_notifications: z.boolean().optional(),
  ip_whitelist_enabled: z.boolean().optional(),
  lish_auth_method: z.enum(LISH_AUTH_METHODS).optional(),
  restricted: z.boolean().optional(),
  timezone: z.string().refine(isTimeZone, "Must be a valid time zone such as UTC or America/New_York").optional(),
  two_factor_auth: z.boolean().optional(),
});
export type ProfileUpdate = z.input<typeof ProfileUpdate>;
