/** Personal access tokens as a collection: listed and fetched by numeric id, and created once. */
import type { PersonalAccessToken, TokenCreate } from "../../../contract";
import { isNotFound } from "../../../client/errors";
import type { MgmtClient } from "../../../client";
import { createOnce, createdSince, matching } from "../../../client/create-once";
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
