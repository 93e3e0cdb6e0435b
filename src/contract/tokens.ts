/** Personal access tokens (`/profile/tokens`) and the OAuth scope text they carry. */
import { z } from "zod";
import { DateTimeInput, Timestamp, ruled } from "./common";
import { oauthScopesText, tokenLabel } from "./field-rules";

/** After creation the API shows only this many leading characters of a token. */
export const TOKEN_PREFIX_LENGTH = 16;

/** `mgmt serve` labels the token it mints for its bootstrap user with the time of the start. */
export const bootstrapTokenLabel = (at: string): string => `mgmt serve ${at}`;
export const BOOTSTRAP_TOKEN_LABEL = /^mgmt serve \d{4}-\d{2}-\d{2}T/;
export const TokenLabel = ruled(tokenLabel);
export const OAuthScopesText = ruled(oauthScopesText);

export const PersonalAccessToken = z.object({
  id: z.number().int(),
  label: z.string(),
  scopes: z.string(),
  created: Timestamp,
  expiry: Timestamp.nullable(),
  /** The full value only in the creation answer; afterwards its first 16 characters. */
  token: z.string(),
});
export type PersonalAccessToken = z.infer<typeof PersonalAccessToken>;

/** `scopes` omitted or null: the acting token's scopes. `expiry` omitted or null: until revoked. */
export const TokenCreate = z.object({
  label: TokenLabel,
  scopes: OAuthScopesText.nullable().optional(),
  expiry: DateTimeInput.nullable().optional(),
});
export type TokenCreate = z.input<typeof TokenCreate>;

/** Only the label changes; other fields sent back (read-only) are ignored. */
export const TokenUpdate = z.object({ label: TokenLabel });
export type TokenUpdate = z.input<typeof TokenUpdate>;
