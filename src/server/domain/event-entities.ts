/**
 * The `entity` of an event, one builder per kind of thing the operations act on. Every area
 * records events on its own things and some on others' (a token of a child account, a user of
 * the account), so the builders, which know each kind's API path, belong to no one area.
 */
import type { EventEntity, UserRecord } from "./records";

/** `entity` builders, one per kind of thing our operations act on. `url` is the API path. */
export const entities = {
  account: (euuid: string, label: string): EventEntity => ({ id: euuid, label, type: "account", url: "/v4/account" }),
  profile: (user: UserRecord): EventEntity => ({ id: user.id, label: user.username, type: "profile", url: "/v4/profile" }),
  token: (id: number, label: string): EventEntity => ({ id, label, type: "token", url: `/v4/profile/tokens/${id}` }),
  sshKey: (id: number, label: string): EventEntity => ({ id, label, type: "user_ssh_key", url: `/v4/profile/sshkeys/${id}` }),
  oauthClient: (publicId: string, label: string): EventEntity => ({
    id: publicId,
    label,
    type: "oauth_client",
    url: `/v4/account/oauth-clients/${publicId}`,
  }),
  tag: (label: string): EventEntity => ({ id: label, label, type: "tag", url: `/v4/tags/${encodeURIComponent(label)}` }),
  entityTransfer: (token: string): EventEntity => ({ id: token, label: token, type: "entity_transfer", url: `/v4/account/entity-transfers/${token}` }),
  compute: (id: number, label: string): EventEntity => ({ id, label, type: "compute", url: `/v4/compute/instances/${id}` }),
  user: (user: UserRecord): EventEntity => ({ id: user.id, label: user.username, type: "user", url: `/v4/account/users/${user.username}` }),
};
