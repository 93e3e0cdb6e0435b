/**
 * OAuth clients (minimal: label, secret hash, website) and their authorizations by users,
 * which the profile shows as authorized apps. The token exchange is "not shown", so
 * `authorize` stands in for it: it records the authorization and issues its token.
 * Revoking the app invalidates its tokens at once. The account manages its clients at
 * `/account/oauth-clients`: public id, `public`, `redirect_uri`, secret reset, deletion
 * (which revokes every authorization and token of the client) and thumbnails.
 */
import type { z } from "zod";
import type { StoreOf } from "../../store/store";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import type { TokenRepos } from "../tokens/store";
import type { OAuthAppRecord, OAuthAppView, OAuthClientPatch, OAuthClientRecord, OAuthRepos } from "./store";

type Repos = OAuthRepos & TokenRepos & ProfileRepos & EventRepos;
type Store = StoreOf<Repos>;
import { OAUTH_CLIENT_CREATE_DEFAULTS, OAuthClientUpdate, sniffImage, type OAuthClientCreate, type Page, type PageQuery } from "../../../contract";
import { requireAccountAccess } from "../../auth/grants";
import { comparableNow, wireNow, type Actor, type Deps } from "../../domain/context";
import { invalid, notFound } from "../../domain/errors";
import { entities } from "../../domain/event-entities";
import { noteEvent } from "../events";
import { pageOf } from "../../domain/paging";
import { Scopes } from "../../../contract/scopes";
import { hashToken } from "../../auth/credentials";
import type { TokenService } from "../tokens";

export interface NewClientInput {
  label: string;
  website?: string;
  thumbnailUrl?: string | null;
  /** Default: the account of the first (bootstrap) user. */
  accountId?: number;
  /** Default false. */
  public?: boolean;
  /** Default: `website`, else `""`. */
  redirectUri?: string;
}

export type ClientInput = z.output<typeof OAuthClientCreate>;
export type ClientChange = z.output<typeof OAuthClientUpdate>;

/** What an update may change: every field of the contract's update body (a field it gains is changed too, not ignored). */
const CHANGEABLE = Object.keys(OAuthClientUpdate.shape) as (keyof ClientChange)[];

/** Public client ids: 20 hex characters, like upstream's. */
export const CLIENT_ID_BYTES = 10;

export interface AuthorizeInput {
  userId: number;
  clientId: number;
  scopes: string;
  /** Wire timestamp; null (default): until revoked. */
  expiry?: string | null;
}

export class OAuthService {
  constructor(
    private readonly deps: Deps<Repos>,
    private readonly tokens: TokenService,
  ) {}

  /** Registers a client; the secret is returned once and stored hashed. */
  async createClient(input: NewClientInput, store: Store = this.deps.store): Promise<{ client: OAuthClientRecord; secret: string }> {
    const { clock, secrets } = this.deps;
    const accountId = input.accountId ?? (await store.users.first())?.account_id;
    if (accountId === undefined) throw new Error("no account to register the client in");
    const secret = secrets.hex(32);
    const client = await store.oauthClients.insert({
      account_id: accountId,
      label: input.label,
      secret_hash: hashToken(secret),
      website: input.website ?? "",
      thumbnail_url: input.thumbnailUrl ?? null,
      created: wireNow(clock),
      public_id: secrets.hex(CLIENT_ID_BYTES),
      public: input.public ?? OAUTH_CLIENT_CREATE_DEFAULTS.public,
      redirect_uri: input.redirectUri ?? input.website ?? "",
      status: "active",
      deleted: null,
    });
    return { client, secret };
  }

  // ------------------------------------------------ /account/oauth-clients

  listClients(actor: Actor, query: PageQuery): Promise<Page<OAuthClientRecord>> {
    return this.deps.store.transaction(async (tx) => {
      await requireAccountAccess(tx, actor, "read_only");
      return pageOf(query, (slice) => tx.oauthClients.list(actor.user.account_id, slice));
    });
  }

  async getClient(actor: Actor, publicId: string, store: Store = this.deps.store): Promise<OAuthClientRecord> {
    await requireAccountAccess(store, actor, "read_only");
    const client = await store.oauthClients.getByPublicId(publicId, actor.user.account_id);
    if (client === undefined) throw notFound();
    return client;
  }

  /** `POST /account/oauth-clients`: the answer carries the secret, the only time it is shown. */
  async register(actor: Actor, input: ClientInput): Promise<{ client: OAuthClientRecord; secret: string }> {
    return this.deps.store.transaction(async (tx) => {
      await requireAccountAccess(tx, actor, "read_write");
      const { client, secret } = await this.createClient(
        {
          label: input.label,
          accountId: actor.user.account_id,
          public: input.public ?? OAUTH_CLIENT_CREATE_DEFAULTS.public,
          redirectUri: input.redirect_uri,
          website: new URL(input.redirect_uri).origin,
        },
        tx,
      );
      await noteEvent(this.deps, { actor, action: "oauth_client_create", entity: entities.oauthClient(client.public_id, client.label) }, tx);
      return { client, secret };
    });
  }

  async updateClient(actor: Actor, publicId: string, change: ClientChange): Promise<OAuthClientRecord> {
    return this.deps.store.transaction(async (tx) => {
      await requireAccountAccess(tx, actor, "read_write");
      const client = await this.getClient(actor, publicId, tx);
      const patch: Pick<OAuthClientPatch, keyof ClientChange> = Object.fromEntries(
        CHANGEABLE.filter((field) => change[field] !== undefined).map((field) => [field, change[field]]),
      );
      // Nothing to change: the client as it is, and no event for a change that did not happen.
      if (Object.keys(patch).length === 0) return client;
      const updated = await tx.oauthClients.update(client.id, patch);
      if (updated === undefined) throw notFound();
      await noteEvent(this.deps, { actor, action: "oauth_client_update", entity: entities.oauthClient(updated.public_id, updated.label) }, tx);
      return updated;
    });
  }

  /** Deletes the client: its id and secret are rejected from now on, its apps and their tokens revoked. */
  async deleteClient(actor: Actor, publicId: string): Promise<void> {
    const now = wireNow(this.deps.clock);
    await this.deps.store.transaction(async (tx) => {
      await requireAccountAccess(tx, actor, "read_write");
      const client = await this.getClient(actor, publicId, tx);
      await tx.oauthClients.update(client.id, { deleted: now });
      for (const appId of await tx.oauthClients.revokeApps(client.id, now)) await tx.tokens.revokeByApp(appId, now);
      await noteEvent(this.deps, { actor, action: "oauth_client_delete", entity: entities.oauthClient(client.public_id, client.label) }, tx);
    });
  }

  /** A new secret; the old one stops working at once. */
  async resetSecret(actor: Actor, publicId: string): Promise<{ client: OAuthClientRecord; secret: string }> {
    return this.deps.store.transaction(async (tx) => {
      await requireAccountAccess(tx, actor, "read_write");
      const client = await this.getClient(actor, publicId, tx);
      const secret = this.deps.secrets.hex(32);
      const updated = await tx.oauthClients.update(client.id, { secret_hash: hashToken(secret) });
      if (updated === undefined) throw notFound();
      await noteEvent(this.deps, { actor, action: "oauth_client_secret_reset", entity: entities.oauthClient(updated.public_id, updated.label) }, tx);
      return { client: updated, secret };
    });
  }

  /** Whether `secret` is the client's current secret (for the token exchange, and tests). */
  async checkSecret(publicId: string, secret: string): Promise<boolean> {
    const client = await this.deps.store.oauthClients.getByPublicId(publicId);
    return client !== undefined && client.secret_hash === hashToken(secret);
  }

  /**
   * `PUT .../thumbnail`: the bytes must be a PNG, JPEG or GIF whose type is the declared one, at
   * most `THUMBNAIL_MAX_BYTES` (checked by the route, 413). `url` is where the public `GET` serves it.
   */
  async setThumbnail(actor: Actor, publicId: string, contentType: string, data: Buffer, url: string): Promise<void> {
    if (data.length === 0) throw invalid(null, "The thumbnail is empty");
    const declared = contentType.split(";")[0]!.trim().toLowerCase();
    const actual = sniffImage(data);
    if (actual === null) throw invalid(null, `The thumbnail must be a PNG, JPEG or GIF image`);
    if (actual !== declared) throw invalid(null, `Content-Type ${declared} does not match the image data (${actual})`);
    await this.deps.store.transaction(async (tx) => {
      await requireAccountAccess(tx, actor, "read_write");
      const client = await this.getClient(actor, publicId, tx);
      await tx.thumbnails.put({ client_id: client.id, content_type: actual, data });
      await tx.oauthClients.update(client.id, { thumbnail_url: url });
    });
  }

  /** The public thumbnail of a client that is not deleted. */
  async thumbnail(publicId: string): Promise<{ contentType: string; data: Buffer }> {
    const client = await this.deps.store.oauthClients.getByPublicId(publicId);
    const thumb = client === undefined ? undefined : await this.deps.store.thumbnails.get(client.id);
    if (thumb === undefined) throw notFound();
    return { contentType: thumb.content_type, data: thumb.data };
  }

  /** A user authorizes a client: a new authorized app and its access token. */
  async authorize(input: AuthorizeInput): Promise<{ app: OAuthAppRecord; token: string }> {
    const { store, clock } = this.deps;
    const scopes = Scopes.parse(input.scopes);
    if (!scopes.ok) throw invalid("scopes", scopes.reason);
    return store.transaction(async (tx) => {
      if ((await tx.oauthClients.get(input.clientId))?.deleted !== null) throw notFound();
      if ((await tx.users.get(input.userId)) === undefined) throw notFound();
      const app = await tx.oauthApps.insert({
        user_id: input.userId,
        client_id: input.clientId,
        scopes: scopes.scopes.toString(),
        created: wireNow(clock),
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
    const now = comparableNow(this.deps.clock);
    return pageOf(query, (slice) => this.deps.store.oauthApps.listActive(actor.user.id, now, slice));
  }

  async getApp(actor: Actor, id: number): Promise<OAuthAppView> {
    const app = await this.deps.store.oauthApps.getActive(actor.user.id, id, comparableNow(this.deps.clock));
    if (app === undefined) throw notFound();
    return app;
  }

  async revokeApp(actor: Actor, id: number): Promise<void> {
    const now = wireNow(this.deps.clock);
    await this.deps.store.transaction(async (tx) => {
      const app = await tx.oauthApps.getActive(actor.user.id, id, now);
      if (app === undefined) throw notFound();
      await tx.oauthApps.revoke(app.id, now);
      await tx.tokens.revokeByApp(app.id, now);
    });
  }
}
