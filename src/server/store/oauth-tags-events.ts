/**
 * Records and repositories of the OAuth-client, tag, event and entity-transfer areas (Part 2,
 * migration `0004_oauth_tags_events`), as the domain sees them: no SQL. The Kysely
 * implementation is `kysely-oauth-tags-events.ts`.
 */
import type { Slice } from "./store";

// ---------------------------------------------------------------- events

export type EventStatus = "failed" | "finished" | "notification" | "scheduled" | "started";

/** What an event is about (`entity`, `secondary_entity` on the wire). */
export interface EventEntity {
  id: number | string;
  label: string;
  type: string;
  url: string;
}

export interface EventRecord {
  id: number;
  account_id: number;
  /** The user who caused it; null for the system. */
  user_id: number | null;
  username: string | null;
  action: string;
  status: EventStatus;
  created: string;
  duration: number;
  entity: EventEntity | null;
  secondary_entity: EventEntity | null;
  message: string | null;
  percent_complete: number | null;
  rate: string | null;
  time_remaining: string | null;
}
export type NewEvent = Omit<EventRecord, "id">;

export interface EventRepo {
  insert(event: NewEvent): Promise<EventRecord>;
  get(accountId: number, id: number): Promise<EventRecord | undefined>;
  /** Every event of the account created at or after `since`, ordered by id. */
  listSince(accountId: number, since: string): Promise<EventRecord[]>;
  /** Which of `eventIds` the user has marked read. */
  readIds(userId: number, eventIds: number[]): Promise<Set<number>>;
  markRead(userId: number, eventId: number): Promise<void>;
  /** The highest event id the user has marked seen (0: none). */
  seenUpTo(userId: number): Promise<number>;
  /** Raises the user's seen mark to `eventId` (never lowers it). */
  markSeenUpTo(userId: number, eventId: number): Promise<void>;
}

// ---------------------------------------------------------------- OAuth-client extras

/** The uploaded thumbnail of an OAuth client. */
export interface ThumbnailRecord {
  client_id: number;
  content_type: string;
  data: Buffer;
}

export interface ThumbnailRepo {
  get(clientId: number): Promise<ThumbnailRecord | undefined>;
  put(thumbnail: ThumbnailRecord): Promise<void>;
}

// ---------------------------------------------------------------- account objects and tags

/** The read-only objects tags apply to (upstream: linodes, domains, volumes, nodebalancers). */
export const OBJECT_KINDS = ["compute", "domain", "volume", "nodebalancer"] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export interface ObjectRecord {
  kind: ObjectKind;
  id: number;
  account_id: number;
  /** `label` (the domain name for a domain). */
  label: string;
  created: string;
  updated: string;
  /** The remaining wire fields, kind-specific (without id, label, created, updated, tags). */
  body: Record<string, unknown>;
}
export type NewObject = Omit<ObjectRecord, "id">;

export interface ObjectRepo {
  insert(object: NewObject): Promise<ObjectRecord>;
  get(kind: ObjectKind, id: number): Promise<ObjectRecord | undefined>;
  setAccount(kind: ObjectKind, id: number, accountId: number, updated: string): Promise<void>;
  /** Objects carrying the tag, ordered by kind (compute, domain, volume, nodebalancer) then id. */
  listTagged(tagId: number): Promise<ObjectRecord[]>;
  /** Tag labels per object id of one kind. */
  tagsOf(kind: ObjectKind, ids: number[]): Promise<Map<number, string[]>>;
}

export interface TagRecord {
  id: number;
  account_id: number;
  label: string;
  created: string;
}
export type NewTag = Omit<TagRecord, "id">;

export interface TagRepo {
  insert(tag: NewTag): Promise<TagRecord>;
  get(accountId: number, label: string): Promise<TagRecord | undefined>;
  count(accountId: number): Promise<number>;
  /** Ordered by label. */
  list(accountId: number, slice: Slice): Promise<TagRecord[]>;
  link(tagId: number, kind: ObjectKind, objectId: number): Promise<void>;
  /** Removes the tag from every object and deletes it. */
  delete(id: number): Promise<void>;
  /** Drops every tag link of an object (it left the account). */
  unlinkObject(kind: ObjectKind, objectId: number): Promise<void>;
}

// ---------------------------------------------------------------- entity transfers

export type TransferStatus = "accepted" | "canceled" | "completed" | "failed" | "pending" | "stale";

export interface TransferRecord {
  id: number;
  token: string;
  /** The account that created it (the sender). */
  account_id: number;
  /** The account that accepted it. */
  receiver_account_id: number | null;
  /** The stored status; a `pending` one past `expiry` is reported `stale`. */
  status: TransferStatus;
  /** Entity ids by type; only `computes` is known. */
  entities: { computes: number[] };
  created: string;
  updated: string;
  expiry: string;
}
export type NewTransfer = Omit<TransferRecord, "id" | "receiver_account_id">;

export interface TransferRepo {
  insert(transfer: NewTransfer): Promise<TransferRecord>;
  get(token: string): Promise<TransferRecord | undefined>;
  /** Transfers the account sent or received, ordered by id. */
  count(accountId: number): Promise<number>;
  list(accountId: number, slice: Slice): Promise<TransferRecord[]>;
  /** Every transfer the account sent with status `pending` (for the "already in a transfer" check). */
  pendingOf(accountId: number): Promise<TransferRecord[]>;
  update(id: number, patch: Partial<Pick<TransferRecord, "status" | "updated" | "receiver_account_id">>): Promise<void>;
}

/** The repositories of this file, hung on the `Store`. */
export interface OAuthTagsEventsStore {
  readonly events: EventRepo;
  readonly thumbnails: ThumbnailRepo;
  readonly objects: ObjectRepo;
  readonly tags: TagRepo;
  readonly transfers: TransferRepo;
}
