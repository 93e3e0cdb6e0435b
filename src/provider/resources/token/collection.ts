/** Personal access tokens as a collection: listed and fetched by numeric id, created once, and their twins. */
import type { PersonalAccessToken, TokenCreate } from "../../../contract";
import { isNotFound } from "../../../client/errors";
import type { MgmtClient } from "../../../client";
import { createOnce, createdSince, matching } from "../../../client/create-once";
import { sameScopes } from "../../../contract/scopes";
import { parseTimestamp } from "../../../contract/timestamps";
import type { Twin } from "../../framework/resource";
import type { FetchableCollection } from "../collection";

export const tokenCollection: FetchableCollection<PersonalAccessToken> = {
  typeName: "mgmt_token",
  title: "personal access tokens",
  path: "/profile/tokens",
  list: (client, o) => client.listTokens(o),
  get: (client, key, o) => client.getToken(Number(key), o),
  key: (t) => String(t.id),
  label: (t) => t.label,
  stateKey: "id",
};

/** A token found after a lost answer is revoked and created again: its value was only in that answer. */
export async function createTokenOnce(client: MgmtClient, body: TokenCreate): Promise<PersonalAccessToken> {
  const c = tokenCollection;
  const made = await createOnce(client, c.typeName, {
    create: () => client.createToken(body),
    candidates: (since, call) => matching(c.list(client, call), (t) => t.label === body.label && createdSince(t.created, since)),
    key: c.key,
    found: "discard",
    discard: async (t, call) => {
      await client.revokeToken(t.id, call).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    },
  });
  return made.value;
}

/** A token older than this is not what an interrupted apply of this plan's run left (its value is lost anyway). */
const TOKEN_TWIN_WINDOW_MS = 24 * 3600_000;

/**
 * Tokens with the label (and the scopes, when the plan knows them: omitted, they are the acting
 * token's), created in the last day, other than the token the provider acts with.
 */
export function tokenTwins(
  tokens: readonly PersonalAccessToken[],
  want: { readonly label: string; readonly scopes: string | undefined },
  now: Date,
  actingTokenPrefix: string | null,
): Twin[] {
  const since = now.getTime() - TOKEN_TWIN_WINDOW_MS;
  return tokens
    .filter(
      (t) =>
        t.label === want.label &&
        (want.scopes === undefined || sameScopes(t.scopes, want.scopes)) &&
        parseTimestamp(t.created).getTime() >= since &&
        t.token !== actingTokenPrefix,
    )
    .map((t) => ({
      id: String(t.id),
      alike: `a token with the same label${want.scopes === undefined ? "" : " and scopes"} created in the last day`,
    }));
}
