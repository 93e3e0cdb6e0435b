/** OAuth clients: `/account/oauth-clients` and their thumbnails. */
import { z } from "zod";
import { ruled } from "./common";
import { OAUTH_CLIENT_STATUSES } from "./enums";
import { oauthClientLabel, redirectUri } from "./field-rules";

/** What list, view and update show instead of the secret. */
export const REDACTED_SECRET = "<REDACTED>";

export const OAuthClient = z.object({
  id: z.string(),
  label: z.string(),
  public: z.boolean(),
  redirect_uri: z.string(),
  secret: z.string(),
  status: z.enum(OAUTH_CLIENT_STATUSES),
  thumbnail_url: z.string().nullable(),
});
export type OAuthClient = z.infer<typeof OAuthClient>;

const label = ruled(oauthClientLabel);
export const RedirectUri = ruled(redirectUri);

export const OAuthClientCreate = z.object({
  label,
  public: z.boolean().optional(),
  redirect_uri: RedirectUri,
});

/** Partial; read-only fields (`id`, `secret`, `status`, `thumbnail_url`) are ignored. */
export const OAuthClientUpdate = z.object({
  label: label.optional(),
  public: z.boolean().optional(),
  redirect_uri: RedirectUri.optional(),
});
