/**
 * `/account/oauth-clients`, and the thumbnails: `PUT` takes the raw image (a content-type
 * parser for image types that only this route accepts), `GET` is public and answers the bytes.
 * `/profile/apps`: the clients a user has authorized, read and revoked.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  API_FILTERABLE,
  AuthorizedApp,
  EmptyBody,
  OAuthClient,
  OAuthClientCreate,
  OAuthClientUpdate,
  REDACTED_SECRET,
  THUMBNAIL_MAX_BYTES,
  THUMBNAIL_TYPES,
} from "../../../contract";
import type { OAuthService } from "./service";
import type { OAuthAppView, OAuthClientRecord } from "./store";
import { notFound } from "../../domain/errors";
import { HttpError } from "../../http/errors";
import { answer, pageView } from "../../http/present";
import { API_PREFIX, pathId, type Router } from "../../http/router";

export const clientView = (c: OAuthClientRecord, secret?: string): OAuthClient => ({
  id: c.public_id,
  label: c.label,
  public: c.public,
  redirect_uri: c.redirect_uri,
  secret: secret ?? REDACTED_SECRET,
  // The store keeps the status as text; the contract names the values the API shows (a stored other one is a bug, and fails here).
  status: OAuthClient.shape.status.parse(c.status),
  thumbnail_url: c.thumbnail_url,
});

export const appView = (app: OAuthAppView): AuthorizedApp => ({
  id: app.id,
  label: app.label,
  scopes: app.scopes,
  website: app.website,
  thumbnail_url: app.thumbnail_url,
  created: app.created,
  expiry: app.expiry,
});

const THUMBNAIL_ROUTE = `${API_PREFIX}/account/oauth-clients/:clientId/thumbnail`;
const CLIENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** A public client id from the path; anything that cannot be one is simply not found. */
function clientId(req: FastifyRequest): string {
  const id = (req.params as Record<string, unknown>).clientId;
  if (typeof id !== "string" || !CLIENT_ID.test(id)) throw notFound();
  return id;
}

/** Where the thumbnail is served, on the host the client used (a host header we cannot trust: `localhost`). */
function thumbnailUrl(req: FastifyRequest, id: string): string {
  const host = req.headers.host !== undefined && HOST.test(req.headers.host) ? req.headers.host : "localhost";
  return `${req.protocol}://${host}${API_PREFIX}/account/oauth-clients/${id}/thumbnail`;
}

/** Registers the image body parser; a route other than the thumbnail `PUT` still refuses images. */
function registerThumbnailParser(app: FastifyInstance): void {
  app.addContentTypeParser(/^image\/[A-Za-z0-9.+-]+$/i, { parseAs: "buffer" }, (req, body, done) => {
    if (req.routeOptions.url !== THUMBNAIL_ROUTE || req.method !== "PUT") {
      done(Object.assign(new Error("Content-Type must be application/json"), { code: "FST_ERR_CTP_INVALID_MEDIA_TYPE", statusCode: 415 }));
      return;
    }
    done(null, body);
  });
}

/** The OAuth area's routes: its clients, then the apps users authorized. */
export function oauthRoutes(r: Router, domain: { oauth: OAuthService }): void {
  oauthClientRoutes(r, domain);
  authorizedAppRoutes(r, domain);
}

function oauthClientRoutes(r: Router, domain: { oauth: OAuthService }): void {
  registerThumbnailParser(r.app);
  r.list(
    "/account/oauth-clients",
    "account:read_only",
    { item: OAuthClient, filter: API_FILTERABLE["/account/oauth-clients"], summary: "List OAuth clients" },
    async ({ actor }, query) => pageView(await domain.oauth.listClients(actor, query), (c) => clientView(c)),
  );

  r.post(
    "/account/oauth-clients",
    "account:read_write",
    { summary: "Create an OAuth client", body: OAuthClientCreate, response: OAuthClient },
    async ({ actor, body }) => {
      const input = body();
      const { client, secret } = await domain.oauth.register(actor, input);
      return answer(OAuthClient, clientView(client, secret));
    },
  );

  r.get("/account/oauth-clients/:clientId", "account:read_only", { summary: "View an OAuth client", response: OAuthClient }, async ({ req, actor }) =>
    answer(OAuthClient, clientView(await domain.oauth.getClient(actor, clientId(req)))),
  );

  r.put(
    "/account/oauth-clients/:clientId",
    "account:read_write",
    { summary: "Update an OAuth client", body: OAuthClientUpdate, response: OAuthClient },
    async ({ req, actor, body }) => {
      const id = clientId(req);
      const change = body();
      return answer(OAuthClient, clientView(await domain.oauth.updateClient(actor, id, change)));
    },
  );

  r.delete("/account/oauth-clients/:clientId", "account:read_write", { summary: "Delete an OAuth client", response: EmptyBody }, async ({ req, actor }) => {
    await domain.oauth.deleteClient(actor, clientId(req));
    return answer(EmptyBody, {});
  });

  r.post(
    "/account/oauth-clients/:clientId/reset-secret",
    "account:read_write",
    { summary: "Reset an OAuth client's secret", response: OAuthClient },
    async ({ req, actor }) => {
      const { client, secret } = await domain.oauth.resetSecret(actor, clientId(req));
      return answer(OAuthClient, clientView(client, secret));
    },
  );

  r.get(
    "/account/oauth-clients/:clientId/thumbnail",
    "public",
    { summary: "View an OAuth client's thumbnail", rawResponse: THUMBNAIL_TYPES },
    async ({ req, reply }) => {
      const { contentType, data } = await domain.oauth.thumbnail(clientId(req));
      reply.header("content-type", contentType).header("cache-control", "no-cache");
      return { status: 200, body: data };
    },
  );

  r.put(
    "/account/oauth-clients/:clientId/thumbnail",
    "account:read_write",
    { summary: "Set an OAuth client's thumbnail", rawBody: THUMBNAIL_TYPES, response: EmptyBody },
    async ({ req, actor }) => {
      const id = clientId(req);
      const body = req.body;
      if (!Buffer.isBuffer(body))
        throw new HttpError(400, [{ reason: "The thumbnail must be sent as an image (Content-Type image/png, image/jpeg or image/gif)" }]);
      if (body.length > THUMBNAIL_MAX_BYTES) throw new HttpError(413, [{ reason: `Thumbnail must be at most ${THUMBNAIL_MAX_BYTES} bytes` }]);
      await domain.oauth.setThumbnail(actor, id, req.headers["content-type"] ?? "", body, thumbnailUrl(req, id));
      return answer(EmptyBody, {});
    },
  );
}

function authorizedAppRoutes(r: Router, domain: { oauth: OAuthService }): void {
  r.list(
    "/profile/apps",
    "account:read_only",
    { item: AuthorizedApp, filter: API_FILTERABLE["/profile/apps"], summary: "List authorized apps" },
    async ({ actor }, query) => pageView(await domain.oauth.listApps(actor, query), appView),
  );
  r.get("/profile/apps/:appId", "account:read_only", { summary: "View an authorized app", response: AuthorizedApp }, async ({ req, actor }) =>
    answer(AuthorizedApp, appView(await domain.oauth.getApp(actor, pathId(req, "appId")))),
  );
  r.delete("/profile/apps/:appId", "account:read_write", { summary: "Revoke an authorized app", response: EmptyBody }, async ({ req, actor }) => {
    await domain.oauth.revokeApp(actor, pathId(req, "appId"));
    return answer(EmptyBody, {});
  });
}
