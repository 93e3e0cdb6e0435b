/** OAuth clients as a collection: listed and fetched by their string id, created once, and their twins. */
import type { z } from "zod";
import type { OAuthClient, OAuthClientCreate } from "../../../contract";
import { OAUTH_CLIENT_CREATE_DEFAULTS, OAUTH_CLIENT_WRITABLE } from "../../../contract/field-rules";
import { formatTimestamp } from "../../../contract/timestamps";
import type { MgmtClient } from "../../../client";
import { createOnce, matching, type Created } from "../../../client/create-once";
import { isNotFound } from "../../../client/errors";
import type { Twin } from "../../framework/resource";
import type { FetchableCollection } from "../collection";

export const oauthClientCollection: FetchableCollection<OAuthClient> = {
  typeName: "mgmt_oauth_client",
  title: "OAuth clients",
  path: "/account/oauth-clients",
  list: (client, o) => client.listOAuthClients(o),
  get: (client, key, o) => client.getOAuthClient(key, o),
  key: (c) => c.id,
  label: (c) => c.label,
  stateKey: "id",
};

/** Whether a client is the one a create body asked for: equal in every field of the contract's create body. */
export function sameOAuthClientRequest(c: OAuthClient, body: z.input<typeof OAuthClientCreate>): boolean {
  const asked: Record<string, unknown> = body;
  const live: Record<string, unknown> = c;
  const defaults: Partial<Record<string, unknown>> = OAUTH_CLIENT_CREATE_DEFAULTS;
  return OAUTH_CLIENT_WRITABLE.every((field) => live[field] === (asked[field] ?? defaults[field]));
}

/**
 * OAuth clients carry no creation time: the events feed says which were created since (it
 * needs `events:read_only`; without it the search fails and so does the create, rather than
 * risk a duplicate). An adopted client's secret was in the lost answer: the caller resets it.
 */
export function createOAuthClientOnce(client: MgmtClient, body: z.input<typeof OAuthClientCreate>): Promise<Created<OAuthClient>> {
  const c = oauthClientCollection;
  return createOnce(client, c.typeName, {
    create: () => client.createOAuthClient(body),
    candidates: async (since, call) => {
      const filter = { action: "oauth_client_create", created: { "+gte": formatTimestamp(since) } };
      const events = await matching(client.listEvents({ ...call, filter }), () => true);
      const found: OAuthClient[] = [];
      for (const e of events) {
        if (e.entity === null) continue;
        const one = await c.get(client, String(e.entity.id), call).catch((err: unknown) => (isNotFound(err) ? null : Promise.reject(err)));
        if (one && sameOAuthClientRequest(one, body)) found.push(one);
      }
      return found;
    },
    key: c.key,
  });
}

export function oauthClientTwins(clients: readonly OAuthClient[], label: string, redirectUri: string): Twin[] {
  return clients
    .filter((c) => c.label === label && c.redirect_uri === redirectUri)
    .map((c) => ({ id: c.id, alike: `an OAuth client with the same label and redirect URI` }));
}
