/**
 * Personal access tokens: minting, listing and revocation. A token is stored only as its SHA-256
 * hash plus its first 16 characters (`../../auth/credentials.ts`); authentication is `../../auth/authenticate.ts`.
 */
import type { z } from "zod";
import { TOKEN_PREFIX_LENGTH, isBearerTokenText, type Page, type PageQuery, type TokenCreate, type TokenUpdate } from "../../../contract";
import type { StoreOf } from "../../store/store";
import { comparableNow, stillAhead, wireNow, type Actor, type Deps } from "../../domain/context";
import { forbidden, invalid, notFound } from "../../domain/errors";
import { pageOf } from "../../domain/paging";
import { entities } from "../../domain/event-entities";
import { noteEvent } from "../events";
import type { EventRepos } from "../events/store";
import { hashToken, tokenUsable } from "../../auth/credentials";
import { Scopes } from "../../../contract/scopes";
import type { TokenRepos } from "./store";
import type { TokenRecord } from "../../domain/records";

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

export type TokenInput = z.output<typeof TokenCreate>;
export type TokenChange = z.output<typeof TokenUpdate>;

type Repos = TokenRepos & EventRepos;
/** What minting and finding a token take. */
type Store = StoreOf<TokenRepos & EventRepos>;

export class TokenService {
  constructor(private readonly deps: Deps<Repos>) {}

  /** Whether the token can still be used now. */
  usable(token: TokenRecord): boolean {
    return tokenUsable(token, this.deps.clock);
  }

  /** The actor's active personal access tokens (neither revoked nor expired). */
  list(actor: Actor, query: PageQuery): Promise<Page<TokenRecord>> {
    const now = comparableNow(this.deps.clock);
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
    if (!stillAhead(expiry, this.deps.clock)) throw invalid("expiry", "expiry must be in the future");
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
    if (!isBearerTokenText(token)) throw new Error("token value has characters a bearer token cannot carry");
    const record = await store.tokens.insert({
      user_id: request.userId,
      label: request.label,
      scopes: request.scopes.toString(),
      token_hash: hashToken(token),
      token_prefix: token.slice(0, TOKEN_PREFIX_LENGTH),
      created: wireNow(this.deps.clock),
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
      await tx.tokens.revoke(token.id, wireNow(clock));
      await noteEvent(this.deps, { actor, action: "token_delete", entity: entities.token(token.id, token.label) }, tx);
    });
  }
}
