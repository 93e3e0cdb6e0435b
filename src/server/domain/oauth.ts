/**
 * OAuth clients (minimal: label, secret hash, website) and their authorizations by users,
 * which the profile shows as authorized apps. The token exchange is "not shown", so
 * `authorize` stands in for it: it records the authorization and issues its token.
 * Revoking the app invalidates its tokens at once.
 */
import type { OAuthAppRecord, OAuthAppView, OAuthClientRecord } from "../store/store";
import type { Page, PageQuery } from "../../contract";
import { timestamp, type Actor, type Deps } from "./context";
import { invalid, notFound } from "./errors";
import { pageOf } from "./paging";
import { Scopes } from "./scopes";
import { hashToken, type TokenService } from "./tokens";

export interface NewClientInput {
  label: string;
  website?: string;
  thumbnailUrl?: string | null;
  /** Default: the account of the first (bootstrap) user. */
  accountId?: number;
}

export interface AuthorizeInput {
  userId: number;
  clientId: number;
  scopes: string;
  /** Wire timestamp; null (default): until revoked. */
  expiry?: string | null;
}

export class OAuthService {
  constructor(
    private readonly deps: Deps,
    private readonly tokens: TokenService,
  ) {}

  /** Registers a client; the secret is returned once and stored hashed. */
  async createClient(input: NewClientInput): Promise<{ client: OAuthClientRecord; secret: string }> {
    const { store, clock, secrets } = this.deps;
    const accountId = input.accountId ?? (await store.users.first())?.account_id;
    if (accountId === undefined) throw new Error("no account to register the client in");
    const secret = secrets.hex(32);
    const client = await store.oauthClients.insert({
      account_id: accountId,
      label: input.label,
      secret_hash: hashToken(secret),
      website: input.website ?? "",
      thumbnail_url: input.thumbnailUrl ?? null,
      created: timestamp(clock),
    });
    return { client, secret };
  }

  /** A user authorizes a client: a new authorized app and its access token. */
  async authorize(input: AuthorizeInput): Promise<{ app: OAuthAppRecord; token: string }> {
    const { store, clock } = this.deps;
    const scopes = Scopes.parse(input.scopes);
    if (!scopes.ok) throw invalid("scopes", scopes.reason);
    return store.transaction(async (tx) => {
      if ((await tx.oauthClients.get(input.clientId)) === undefined) throw notFound();
      if ((await tx.users.get(input.userId)) === undefined) throw notFound();
      const app = await tx.oauthApps.insert({
        user_id: input.userId,
        client_id: input.clientId,
        scopes: scopes.scopes.toString(),
        created: timestamp(clock),
        expiry: input.expiry ?? null,
      });
      const { token } = await this.tokens.mint(
        { userId: input.userId, label: `oauth app ${app.id}`, scopes: scopes.scopes, expiry: app.expiry, appId: app.id },
        tx,
      );
      return { app, token };
    });
  }

  listApps(actor: Actor, query: PageQuery): Promise<Page<OAuthAppView>> {
    const now = timestamp(this.deps.clock);
    return this.deps.store.transaction((tx) =>
      pageOf(
        query,
        () => tx.oauthApps.countActive(actor.user.id, now),
        (slice) => tx.oauthApps.listActive(actor.user.id, now, slice),
      ),
    );
  }

  async getApp(actor: Actor, id: number): Promise<OAuthAppView> {
    const app = await this.deps.store.oauthApps.getActive(actor.user.id, id, timestamp(this.deps.clock));
    if (app === undefined) throw notFound();
    return app;
  }

  async revokeApp(actor: Actor, id: number): Promise<void> {
    const now = timestamp(this.deps.clock);
    await this.deps.store.transaction(async (tx) => {
      const app = await tx.oauthApps.getActive(actor.user.id, id, now);
      if (app === undefined) throw notFound();
      await tx.oauthApps.revoke(app.id, now);
      await tx.tokens.revokeByApp(app.id, now);
    });
  }
}
