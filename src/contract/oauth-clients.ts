/** Part 2, OAuth clients: `/account/oauth-clients` and their thumbnails. */
import { z } from "zod";

export const OAUTH_CLIENT_STATUSES = ["active", "disabled", "suspended"] as const;
/** What list, view and update show instead of the secret. */
export const REDACTED_SECRET = "<REDACTED>";
export const OAUTH_CLIENT_LABEL_MAX = 512;
/** Longest accepted `redirect_uri` (the contract gives none). */
export const REDIRECT_URI_MAX = 2000;

/** Image types a thumbnail may have, with the leading bytes that identify each. */
export const THUMBNAIL_TYPES = ["image/png", "image/jpeg", "image/gif"] as const;
export type ThumbnailType = (typeof THUMBNAIL_TYPES)[number];
/** Largest accepted thumbnail, in bytes (the contract gives none). */
export const THUMBNAIL_MAX_BYTES = 256 * 1024;

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

const label = z
  .string()
  .min(1, `Length must be between 1 and ${OAUTH_CLIENT_LABEL_MAX} characters.`)
  .max(OAUTH_CLIENT_LABEL_MAX, `Length must be between 1 and ${OAUTH_CLIENT_LABEL_MAX} characters.`);

/** An absolute `http` or `https` URL. */
export const RedirectUri = z
  .string()
  .max(REDIRECT_URI_MAX, `Length must be ${REDIRECT_URI_MAX} characters or less.`)
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
    } catch {
      return false;
    }
  }, "redirect_uri must be an absolute http or https URL");

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

/** The image type the bytes are, judged by their magic numbers; null when none. */
export function sniffImage(bytes: Uint8Array): ThumbnailType | null {
  const starts = (...sig: number[]) => bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38, 0x37, 0x61) || starts(0x47, 0x49, 0x46, 0x38, 0x39, 0x61)) return "image/gif";
  return null;
}
