/** What the API shows but cannot create: authorized apps, trusted devices, logins. */
import { z } from "zod";
import { Timestamp } from "./common";

export const AuthorizedApp = z.object({
  id: z.number().int(),
  label: z.string(),
  scopes: z.string(),
  website: z.string(),
  thumbnail_url: z.string().nullable(),
  created: Timestamp,
  expiry: Timestamp.nullable(),
});
export type AuthorizedApp = z.infer<typeof AuthorizedApp>;

export const TrustedDevice = z.object({
  id: z.number().int(),
  created: Timestamp,
  expiry: Timestamp,
  last_authenticated: Timestamp,
  last_remote_addr: z.string(),
  user_agent: z.string(),
});
export type TrustedDevice = z.infer<typeof TrustedDevice>;

export const LOGIN_STATUSES = ["successful", "failed"] as const;
export const Login = z.object({
  id: z.number().int(),
  datetime: Timestamp,
  ip: z.string(),
  restricted: z.boolean(),
  status: z.enum(LOGIN_STATUSES),
  username: z.string(),
});
export type Login = z.infer<typeof Login>;

/** Trusted-device sessions last 30 days; login lists cover 90 days. */
export const TRUSTED_DEVICE_DAYS = 30;
export const LOGIN_HISTORY_DAYS = 90;
