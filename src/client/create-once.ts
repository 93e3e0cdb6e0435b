/**
 * Creates that are never silently duplicated. When a create's outcome is unknown (the
 * connection broke after the request went out, no answer in time, a 5xx), the object may exist
 * already. Before anything else the collection is searched for an object that matches the
 * request and was created since the first attempt began, and that no other create of this
 * client has claimed: found, it is adopted (or, where the lost answer carried a value the API
 * never shows again, discarded); not found, the create is tried again, after a back-off, within
 * the client's retry budget. A refusal (4xx) is final, as before.
 *
 * A stop (the client's signal) never interrupts this once the create was sent: the search and a
 * discard run to their end, so no object is left that nobody knows of. It cancels only the
 * back-off before a create sent again, which nothing exists of yet.
 */
import type { z } from "zod";
import { formatTimestamp, parseTimestamp } from "../contract/timestamps";
import { OAUTH_CLIENT_CREATE_DEFAULTS, OAUTH_CLIENT_WRITABLE } from "../contract/field-rules";
import type { OAuthClient, OAuthClientCreate } from "../contract/oauth-clients";
import { sameSshKey } from "../contract/sshkey-format";
import type { SshKey, SshKeyCreate } from "../contract/sshkeys";
import type { Tag, TagCreate, TaggedObject } from "../contract/tags";
import type { PersonalAccessToken, TokenCreate } from "../contract/tokens";
import { ApiError, NetworkError, isNotFound } from "./errors";
import type { CallOptions } from "./http";
import type { MgmtClient } from "./index";

/** Whether a failed create may nonetheless have happened on the server. */
export function outcomeUnknown(err: unknown): boolean {
  if (err instanceof NetworkError) return err.kind === "network" || err.kind === "timeout";
  return err instanceof ApiError && err.status >= 500;
}

/**
 * Servers stamp `created` in whole seconds on their own clock: a candidate counts as new from
 * this long before the first attempt, so a second boundary or a small clock skew never hides it.
 */
export const CREATED_SLACK_MS = 5_000;

/** The calls that finish a create already sent: not cancelled by a stop. */
const FINISHING: CallOptions = { signal: null };

export interface CreateOnce<T> {
  create(): Promise<T>;
  /** Objects matching the request created at or after `since` (any order), asked with `o`. */
  candidates(since: Date, o: CallOptions): Promise<T[]>;
  /** The identity claims are kept by (an id, a label). */
  key(item: T): string;
  /** `adopt` (default): the found object is the result. `discard`: delete it and create again (its answer held a value that is lost). */
  readonly found?: "adopt" | "discard";
  discard?(item: T, o: CallOptions): Promise<void>;
}

export interface Created<T> {
  readonly value: T;
  /** True when the value is an object a lost answer had created, found and adopted. */
  readonly adopted: boolean;
  /** Adopted because the create was refused for an object that already exists and matches (a tag an earlier apply could not record). */
  readonly existed?: boolean;
}

/** Keys of the objects each client's creates have produced or adopted, per collection. */
const claims = new WeakMap<MgmtClient, Map<string, Set<string>>>();

function claimed(client: MgmtClient, collection: string): Set<string> {
  let byCollection = claims.get(client);
  if (!byCollection) claims.set(client, (byCollection = new Map()));
  let keys = byCollection.get(collection);
  if (!keys) byCollection.set(collection, (keys = new Set()));
  return keys;
}

export async function createOnce<T>(client: MgmtClient, collection: string, o: CreateOnce<T>): Promise<Created<T>> {
  const since = new Date(Date.now() - CREATED_SLACK_MS);
  const mine = claimed(client, collection);
  const began = performance.now();
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await o.create();
      mine.add(o.key(value));
      return { value, adopted: false };
    } catch (err) {
      if (!outcomeUnknown(err)) throw err;
      const found = (await o.candidates(since, FINISHING)).filter((c) => !mine.has(o.key(c)));
      if (found.length > 0 && (o.found ?? "adopt") === "adopt") {
        const value = found[0]!;
        mine.add(o.key(value));
        return { value, adopted: true };
      }
      for (const orphan of found) await o.discard?.(orphan, FINISHING);
      // The budget counts what was waited too, so it ends even where the waits are simulated. A stop
      // ends it too: nothing of this create exists, and it is not sent again.
      const delayMs = await client.http.backoff(attempt, undefined, Math.max(performance.now() - began, waited));
      if (delayMs === undefined) throw err;
      waited += delayMs;
    }
  }
}

// The creates of the collections the provider manages, each with what makes an object "the same request".

const createdSince = (created: string, since: Date) => parseTimestamp(created).getTime() >= since.getTime();

async function collect<T>(items: AsyncIterable<T>, keep: (item: T) => boolean): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) if (keep(item)) out.push(item);
  return out;
}

export function createSshKeyOnce(client: MgmtClient, body: SshKeyCreate): Promise<Created<SshKey>> {
  return createOnce(client, "sshkeys", {
    create: () => client.createSshKey(body),
    candidates: (since, call) =>
      collect(client.listSshKeys(call), (k) => k.label === (body.label ?? "") && sameSshKey(k.ssh_key, body.ssh_key) && createdSince(k.created, since)),
    key: (k) => String(k.id),
  });
}

/** A token found after a lost answer is revoked and created again: its value was only in that answer. */
export async function createTokenOnce(client: MgmtClient, body: TokenCreate): Promise<PersonalAccessToken> {
  const made = await createOnce(client, "tokens", {
    create: () => client.createToken(body),
    candidates: (since, call) => collect(client.listTokens(call), (t) => t.label === body.label && createdSince(t.created, since)),
    key: (t) => String(t.id),
    found: "discard",
    discard: async (t, call) => {
      await client.revokeToken(t.id, call).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    },
  });
  return made.value;
}

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
  return createOnce(client, "oauth-clients", {
    create: () => client.createOAuthClient(body),
    candidates: async (since, call) => {
      const filter = { action: "oauth_client_create", created: { "+gte": formatTimestamp(since) } };
      const events = await collect(client.listEvents({ ...call, filter }), () => true);
      const found: OAuthClient[] = [];
      for (const e of events) {
        if (e.entity === null) continue;
        const c = await client.getOAuthClient(String(e.entity.id), call).catch((err: unknown) => (isNotFound(err) ? null : Promise.reject(err)));
        if (c && sameOAuthClientRequest(c, body)) found.push(c);
      }
      return found;
    },
    key: (c) => c.id,
  });
}

/** The create body's list for each type of tagged object. */
const TAG_LISTS = { compute: "computes", domain: "domains", volume: "volumes", nodebalancer: "nodebalancers" } as const;

/** Whether a tag's objects are exactly those a create body names (an absent list is an empty one). */
export function sameTaggedObjects(objects: readonly TaggedObject[], body: TagCreate): boolean {
  return (Object.keys(TAG_LISTS) as TaggedObject["type"][]).every((type) => {
    const live = objects.filter((o) => o.type === type).map((o) => o.data.id);
    const wanted = [...new Set(body[TAG_LISTS[type]] ?? [])];
    return live.length === wanted.length && wanted.every((id) => live.includes(id));
  });
}

const labelTaken = (err: unknown): boolean => err instanceof ApiError && err.status === 400 && err.reasonsFor("label").some((r) => /already exists/i.test(r));

/**
 * Labels are unique: a tag with the label after a lost answer is the one the request made. A
 * create refused because the label exists adopts that tag when it carries exactly the requested
 * objects and no create of this client made it: that is the tag an earlier apply made but could
 * not record (its answer or read-back lost), and the API could not tell it from a new one anyway.
 */
export async function createTagOnce(client: MgmtClient, body: TagCreate): Promise<Created<Tag>> {
  try {
    return await createOnce(client, "tags", {
      create: () => client.createTag(body),
      candidates: async (_since, call) => collect(client.listTags(call), (t) => t.label === body.label),
      key: (t) => t.label,
    });
  } catch (err) {
    const mine = claimed(client, "tags");
    if (!labelTaken(err) || mine.has(body.label)) throw err;
    const objects = await collect(client.listTaggedObjects(body.label), () => true);
    if (!sameTaggedObjects(objects, body)) throw err;
    mine.add(body.label);
    return { value: { label: body.label }, adopted: true, existed: true };
  }
}
