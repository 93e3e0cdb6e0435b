/**
 * Bearer authentication: the caller a token stands for. It reads three areas' records (the token,
 * the authorization of an OAuth token, the user), so it belongs to none of them; it names the
 * reads it makes, which the tokens, OAuth and profile areas' repositories are.
 */
import { isBearerTokenText } from "../../contract";
import { Scopes } from "../../contract/scopes";
import { stillAhead, type Actor, type Deps } from "../domain/context";
import { invalidToken } from "../domain/errors";
import type { TokenRecord, UserRecord } from "../domain/records";
import { hashToken, tokenUsable } from "./credentials";

/** What authentication reads. */
export interface AuthRepos {
  readonly tokens: { findByHash(hash: string): Promise<TokenRecord | undefined> };
  readonly oauthApps: {
    /** The authorization (authorized app) an OAuth token belongs to. */
    byId(id: number): Promise<{ client_id: number; expiry: string | null; revoked: string | null } | undefined>;
    /** Stays the same while no lookup can answer differently (undefined: unknown, so nothing is remembered). */
    lookupMark(): string | undefined;
  };
  readonly users: { get(id: number): Promise<UserRecord | undefined> };
}

/** How many bearer tokens' lookups `authenticate` remembers. */
const REMEMBERED_TOKENS = 1000;

interface Found {
  actor: Actor;
  appExpiry: string | null;
}

export class Authenticator {
  constructor(private readonly deps: Deps<AuthRepos>) {}

  /**
   * The caller a bearer token stands for. What the lookup found is remembered for as long as
   * the store's mark of the tables it reads stays the same (no revocation, no user or app
   * change, in this process or another); expiry is checked against the clock every time.
   * Saves the hash and two or three queries per request.
   */
  async authenticate(bearer: string): Promise<Actor> {
    if (!isBearerTokenText(bearer)) throw invalidToken();
    const mark = this.deps.store.oauthApps.lookupMark();
    const known = mark === undefined ? undefined : this.known.get(bearer);
    const hit = known !== undefined && known.mark === mark ? known.found : undefined;
    const found = hit ?? (await this.lookUp(bearer));
    const { clock } = this.deps;
    if (!tokenUsable(found.actor.token, clock) || !stillAhead(found.appExpiry, clock)) throw invalidToken();
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
}
