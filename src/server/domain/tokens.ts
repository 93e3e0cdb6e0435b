/**
 * Personal access tokens: minting, authentication (lookup by hash, expiry, revocation) and
 * revocation. A token is stored only as its SHA-256 hash plus its first 16 characters.
 */
import { createHash } from "node:crypto";
import { parseTimestamp } from "../../contract";
import type { Store, TokenRecord } from "../store/store";
import { timestamp, type Actor, type Deps } from "./context";
import { invalidToken, notFound } from "./errors";
import { Scopes } from "./scopes";

/** Characters a bearer token may hold (RFC 6750 `b64token`), at most 256 of them. */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]+=*$/;
export const TOKEN_MAX_LENGTH = 256;
export const TOKEN_PREFIX_LENGTH = 16;

export const isTokenText = (text: string): boolean => text.length <= TOKEN_MAX_LENGTH && TOKEN_PATTERN.test(text);

export const hashToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

export interface MintRequest {
  userId: number;
  label: string;
  scopes: Scopes;
  /** Wire-format timestamp, or null for a token that lasts until revoked. */
  expiry: string | null;
  /** A chosen token value (for `MGMT_SERVE_TOKEN`); otherwise a fresh secret. */
  value?: string;
}

export class TokenService {
  constructor(private readonly deps: Deps) {}

  /** Whether the token can still be used now. */
  usable(token: TokenRecord): boolean {
    if (token.revoked !== null) return false;
    return token.expiry === null || parseTimestamp(token.expiry).getTime() > this.deps.clock.now().getTime();
  }

  async authenticate(bearer: string): Promise<Actor> {
    const { store } = this.deps;
    const token = await store.tokens.findByHash(hashToken(bearer));
    if (token === undefined || !this.usable(token)) throw invalidToken();
    const scopes = Scopes.parse(token.scopes);
    const user = await store.users.get(token.user_id);
    if (!scopes.ok || user === undefined) throw invalidToken();
    return { user, token, scopes: scopes.scopes };
  }

  /** Creates a token; the returned `token` is the only time its full value is known. */
  async mint(request: MintRequest, store: Store = this.deps.store): Promise<{ record: TokenRecord; token: string }> {
    const token = request.value ?? this.deps.secrets.token();
    if (!isTokenText(token)) throw new Error("token value has characters a bearer token cannot carry");
    const record = await store.tokens.insert({
      user_id: request.userId,
      label: request.label,
      scopes: request.scopes.toString(),
      token_hash: hashToken(token),
      token_prefix: token.slice(0, TOKEN_PREFIX_LENGTH),
      created: timestamp(this.deps.clock),
      expiry: request.expiry,
    });
    return { record, token };
  }

  async findByValue(token: string, store: Store = this.deps.store): Promise<TokenRecord | undefined> {
    return store.tokens.findByHash(hashToken(token));
  }

  /** Revokes one of the actor's tokens (the acting token may revoke itself). */
  async revoke(actor: Pick<Actor, "user">, tokenId: number): Promise<void> {
    const { store, clock } = this.deps;
    await store.transaction(async (tx) => {
      const token = await tx.tokens.get(actor.user.id, tokenId);
      if (token === undefined || token.revoked !== null) throw notFound();
      await tx.tokens.revoke(token.id, timestamp(clock));
    });
  }
}
