/**
 * What makes a live object the exact twin of one a plan creates, per type: the fields a create
 * sets and the API shows back. Pure; the resources hand them the collection the batched reads
 * listed (`BatchedCollection.all`), and the framework keeps only the twins outside state.
 */
import type { OAuthClient, PersonalAccessToken, SshKey } from "../../contract";
import { sameScopes } from "../../contract/scopes";
import { sameSshKey } from "../../contract/sshkey-format";
import { parseTimestamp } from "../../contract/timestamps";
import type { Twin } from "../framework/resource";

/** A token older than this is not what an interrupted apply of this plan's run left (its value is lost anyway). */
export const TOKEN_TWIN_WINDOW_MS = 24 * 3600_000;

export function sshKeyTwins(keys: readonly SshKey[], label: string, sshKey: string): Twin[] {
  return keys
    .filter((k) => k.label === label && sameSshKey(k.ssh_key, sshKey))
    .map((k) => ({ id: String(k.id), alike: `an SSH key with the same label and public key` }));
}

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

export function oauthClientTwins(clients: readonly OAuthClient[], label: string, redirectUri: string): Twin[] {
  return clients
    .filter((c) => c.label === label && c.redirect_uri === redirectUri)
    .map((c) => ({ id: c.id, alike: `an OAuth client with the same label and redirect URI` }));
}
