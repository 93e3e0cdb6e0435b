/**
 * Personal access tokens: minting, authentication (lookup by hash, expiry, revocation) and
 * revocation. A token is stored only as its SHA-256 hash plus its first 16 characters.
 */
import { createHash } from "node:crypto";
import type { z } from "zod";
import { TOKEN_PREFIX_LENGTH, parseTimestamp, type Page, type PageQuery, type TokenCreate, type TokenUpdate } from "../../../contract";
import type { StoreOf } from "../../store/store";
import { comparableTimestamp, timestamp, type Actor, type Deps } from "../../domain/context";
import { forbidden, invalid, invalidToken, notFound } from "../../domain/errors";
import { pageOf } from "../../domain/paging";
import { entities, noteEvent } from "../events/service";
import type { EventRepos } from "../events/store";
import type { OAuthRepos } from "../oauth/store";
import type { ProfileRepos } from "../profile/store";
import { Scopes } from "../../../contract/scopes";
import type { TokenRepos } from "./store";
import type { TokenRecord } from "../../domain/records";

/** Characters a bearer token may hold (RFC 6750 `b64token`), at most 256 of them. */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]+=*$/;
export const TOKEN_MAX_LENGTH = 256;

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
  /** For an OAuth token: the authorization (authorized app) it belongs to. */
  appId?: number;
}

/** How many bearer tokens' lookups `authenticate` remembers. */
const REMEMBERED_TOKENS = 1000;

interface Found {
  actor: Actor;
  appExpiry: string | null;
}

export type TokenInput = z.output<typeof TokenCreate>;
export type TokenChange = z.output<typeof TokenUpdate>;

/** Tokens, and what authentication reads: the apps of OAuth tokens and the users. */
type Repos = TokenRepos & Pick<OAuthRepos, "oauthApps"> & Pick<ProfileRepos, "users"> & EventRepos;
/** What minting and finding a token take. */
type Store = StoreOf<TokenRepos & EventRepos>;

export class TokenService {
  constructor(private readonly deps: Deps<Repos>) {}

  /** Whether the token can still be used now. */
  usable(token: TokenRecord): boolean {
    if (token.revoked !== null) return false;
    return token.expiry === null || parseTimestamp(token.expiry).getTime() > this.deps.clock.now().getTime();
  }

  /**
   * The caller a bearer token stands for. What the lookup found is remembered for as long as
   * the store's mark of the tables it reads stays the same (no revocation, no user or app
   * change, in this process or another); expiry is checked against the clock every time.
   * Saves the hash and two or three queries per request.
   */
  async authenticate(bearer: string): Promise<Actor> {
    if (!isTokenText(bearer)) throw invalidToken();
    const mark = this.deps.store.tokens.lookupMark();
    const known = mark === undefined ? undefined : this.known.get(bearer);
    const hit = known !== undefined && known.mark === mark ? known.found : undefined;
    const found = hit ?? (await this.lookUp(bearer));
    if (!this.usable(found.actor.token) || (found.appExpiry !== null && found.appExpiry <= comparableTimestamp(this.deps.clock))) throw invalidToken();
    if (mark !== undefined && hit === undefined) this.remember(bearer, { mark, found });
    return found.actor;
  }

  /** The token's actor, or invalidToken; `appExpiry`: its authorized app's expiry (OAuth tokens). */
  private async lookUp(bearer: string): Promise<Found> {
    const { store } = this.deps;
    const token = await store.tokens.findByHash(hashToken(bearer));
    if (token === undefined || token.revoked !== null) throw invalidToken();
    let clientId: number | null = null;
    let appExpiry: string | null = null;
    if (token.app_id !== null) {
      // An OAuth token lives as long as its authorization (the authorized app).
      const app = await store.oauthApps.byId(token.app_id);
      if (app === undefined || app.revoked !== null) throw invalidToken();
      clientId = app.client_id;
      appExpiry = app.expiry;
    }
    const scopes = Scopes.parse(token.scopes);
    const user = await store.users.get(token.user_id);
    if (!scopes.ok || user === undefined) throw invalidToken();
    return { actor: { user, token, scopes: scopes.scopes, clientId }, appExpiry };
  }

  private readonly known = new Map<string, { mark: string; found: Found }>();

  private remember(bearer: string, entry: { mark: string; found: Found }): void {
    // Forget the oldest past the bound; a stale entry is never used (its mark differs).
    if (this.known.size >= REMEMBERED_TOKENS) this.known.delete(this.known.keys().next().value!);
    this.known.set(bearer, entry);
  }

  /** The actor's active personal access tokens (neither revoked nor expired). */
  list(actor: Actor, query: PageQuery): Promise<Page<TokenRecord>> {
    const now = comparableTimestamp(this.deps.clock);
    return pageOf(query, (slice) => this.deps.store.tokens.listActive(actor.user.id, now, slice));
  }

  /** One of the actor's active personal access tokens; revoked and expired ones are gone (404). */
  async get(actor: Actor, id: number, store: Store = this.deps.store): Promise<TokenRecord> {
    const token = await store.tokens.get(actor.user.id, id);
    if (token === undefined || !this.usable(token)) throw notFound();
    return token;
  }

  /**
   * `POST /profile/tokens`. Rules: a proxy user cannot create one; the scopes (default: the
   * acting token's) may not exceed the acting token's, and `*` asks for all of them (upstream
   * gives a limited token's creation `*` its own scopes: "at most the creator's"); an expiry
   * must be in the future.
   */
  async create(actor: Actor, input: TokenInput): Promise<{ record: TokenRecord; token: string }> {
    if (actor.user.user_type === "proxy") {
      throw forbidden(null, "A proxy user cannot create personal access tokens; use a proxy user token instead");
    }
    let scopes = actor.scopes;
    if (input.scopes != null && input.scopes !== "*") {
      const parsed = Scopes.parse(input.scopes);
      if (!parsed.ok) throw invalid("scopes", parsed.reason);
      if (!actor.scopes.covers(parsed.scopes)) throw invalid("scopes", "Scopes may not exceed those of the acting token");
      scopes = parsed.scopes;
    }
    const expiry = input.expiry ?? null;
    if (expiry !== null && expiry <= comparableTimestamp(this.deps.clock)) throw invalid("expiry", "expiry must be in the future");
    return this.deps.store.transaction(async (tx) => {
      const minted = await this.mint({ userId: actor.user.id, label: input.label, scopes, expiry }, tx);
      await noteEvent(this.deps, { actor, action: "token_create", entity: entities.token(minted.record.id, minted.record.label) }, tx);
      return minted;
    });
  }

  /** Only the label changes. */
  async update(actor: Actor, id: number, change: TokenChange): Promise<TokenRecord> {
    return this.deps.store.transaction(async (tx) => {
      await this.get(actor, id, tx);
      const updated = await tx.tokens.updateLabel(id, change.label);
      if (updated === undefined) throw notFound();
      await noteEvent(this.deps, { actor, action: "token_update", entity: entities.token(updated.id, updated.label) }, tx);
      return updated;
    });
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
      app_id: request.appId ?? null,
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
      if (token === undefined || !this.usable(token)) throw notFound();
      await tx.tokens.revoke(token.id, timestamp(clock));
      await noteEvent(this.deps, { actor, action: "token_delete", entity: entities.token(token.id, token.label) }, tx);
    });
  }
}
