/** The acting user's profile (`/profile`). */
import { z } from "zod";

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
