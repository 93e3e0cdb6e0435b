/**
 * What `mgmt drift --unmanaged` needs per resource type: how to list the live objects and which
 * import id each has, and how to read that id back from a state object. One entry per type; a type
 * is only consulted while the provider has it (the caller passes the provider's resource types), so
 * an entry may land before its resource does.
 *
 * Singletons (mgmt_account_contact, mgmt_profile_settings) have no entry on purpose: the object
 * always exists, so "not in state" means "not managed here", never "left behind".
 */
import { listAll, type MgmtClient } from "../client";

/** Why a live object that no state holds is still not reported as unmanaged. */
export type KnownRole = "bootstrap" | "acting";

export interface LiveObject {
  readonly importId: string;
  /** A human name for the report and for deriving the `to` address; not a secret. */
  readonly label: string;
  readonly role?: KnownRole;
}

export interface ListContext {
  readonly client: MgmtClient;
  /** The token the run acts with, to recognise it in the token list (only its prefix is compared). */
  readonly actingToken: string;
}

export interface UnmanagedType {
  readonly type: string;
  /** Plural noun for headings. */
  readonly title: string;
  readonly list: (ctx: ListContext) => Promise<LiveObject[]>;
  /** The import id of an object in state, from its state values. */
  readonly stateId: (values: Record<string, unknown>) => string | undefined;
}

const idOf = (values: Record<string, unknown>) => (typeof values.id === "string" || typeof values.id === "number" ? String(values.id) : undefined);

/** The API shows a token's first 16 characters after creation; so does this comparison. */
export const TOKEN_PREFIX_CHARS = 16;

/** `mgmt serve` labels each token it mints at start `mgmt serve <UTC time>`. */
const BOOTSTRAP_LABEL = /^mgmt serve \d{4}-\d{2}-\d{2}T/;

export function tokenRole(token: { label: string; token: string }, actingToken: string): KnownRole | undefined {
  if (actingToken.length >= TOKEN_PREFIX_CHARS && token.token.slice(0, TOKEN_PREFIX_CHARS) === actingToken.slice(0, TOKEN_PREFIX_CHARS)) return "acting";
  if (BOOTSTRAP_LABEL.test(token.label)) return "bootstrap";
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
