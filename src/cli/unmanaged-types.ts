/**
 * What `mgmt drift --unmanaged` needs per resource type: how to list the live objects (the API
 * calls, so this lives with the command, not in the pure report modules) and which import id
 * each has, and how to read that id back from a state object. One entry per managed type.
 *
 * Singletons (mgmt_account_contact, mgmt_profile_settings) have no entry on purpose: the object
 * always exists, so "not in state" means "not managed here", never "left behind".
 */
import { listAll, type MgmtClient } from "../client";
import { BOOTSTRAP_TOKEN_LABEL, TOKEN_PREFIX_LENGTH } from "../contract/tokens";
import type { KnownRole, LiveObject, UnmanagedKind } from "../report/unmanaged";

export interface ListContext {
  readonly client: MgmtClient;
  /** The token the run acts with, to recognise it in the token list (only its prefix is compared). */
  readonly actingToken: string;
}

export interface UnmanagedType extends UnmanagedKind {
  readonly list: (ctx: ListContext) => Promise<LiveObject[]>;
}

const idOf = (values: Record<string, unknown>) => (typeof values.id === "string" || typeof values.id === "number" ? String(values.id) : undefined);

export function tokenRole(token: { label: string; token: string }, actingToken: string): KnownRole | undefined {
  // The API shows a token's first TOKEN_PREFIX_LENGTH characters after creation; so does this comparison.
  if (actingToken.length >= TOKEN_PREFIX_LENGTH && token.token.slice(0, TOKEN_PREFIX_LENGTH) === actingToken.slice(0, TOKEN_PREFIX_LENGTH)) return "acting";
  if (BOOTSTRAP_TOKEN_LABEL.test(token.label)) return "bootstrap";
  return undefined;
}

export const UNMANAGED_TYPES: readonly UnmanagedType[] = [
  {
    type: "mgmt_ssh_key",
    title: "SSH keys",
    stateId: idOf,
    list: async ({ client }) => (await listAll(client.listSshKeys())).map((k) => ({ importId: String(k.id), label: k.label })),
  },
  {
    type: "mgmt_token",
    title: "personal access tokens",
    stateId: idOf,
    list: async ({ client, actingToken }) =>
      (await listAll(client.listTokens())).map((t) => {
        const role = tokenRole(t, actingToken);
        return { importId: String(t.id), label: t.label, ...(role ? { role } : {}) };
      }),
  },
  {
    type: "mgmt_oauth_client",
    title: "OAuth clients",
    stateId: idOf,
    list: async ({ client }) => (await listAll(client.listOAuthClients())).map((c) => ({ importId: c.id, label: c.label })),
  },
  {
    type: "mgmt_tag",
    title: "tags",
    // A tag's id is its label, and it is imported by label.
    stateId: (values) => (typeof values.label === "string" ? values.label : idOf(values)),
    list: async ({ client }) => (await listAll(client.listTags())).map((t) => ({ importId: t.label, label: t.label })),
  },
];
