/**
 * What a bearer token is checked by, wherever it is minted or looked up (the tokens area, OAuth's
 * token exchange, two-factor's scratch codes, authentication): a token is stored only as its
 * SHA-256 hash plus its first 16 characters, and is usable until revoked or expired.
 */
import { createHash } from "node:crypto";
import type { Clock } from "../clock";
import { stillAhead } from "../domain/context";
import type { TokenRecord } from "../domain/records";

export const hashToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

/** Whether the token can still be used now. */
export function tokenUsable(token: TokenRecord, clock: Clock): boolean {
  return token.revoked === null && stillAhead(token.expiry, clock);
}
