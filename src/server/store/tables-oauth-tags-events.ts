/**
 * The tables of migration `0004_oauth_tags_events` as Kysely sees them (listed in `Database`
 * in `tables.ts`). Portable columns only: integers, TEXT timestamps, JSON and base64 as TEXT.
 */
import type { Generated } from "kysely";

export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number | null;
  username: string | null;
  action: string;
  status: string;
  created: string;
  duration: number;
  /** `entity` and `secondary_entity` as JSON text (null: none). */
  entity: string | null;
  /** The entity's type and id as text, for filtering and grants. */
  entity_type: string | null;
  entity_id: string | null;
  secondary_entity: string | null;
  message: string | null;
  percent_complete: number | null;
  rate: string | null;
  time_remaining: string | null;
}

/** Events a user marked read. */
export interface EventReadsTable {
  user_id: number;
  event_id: number;
}

/** The highest event id a user marked seen. */
export interface EventSeenTable {
  user_id: number;
  up_to: number;
}

export interface OAuthThumbnailsTable {
  client_id: number;
  content_type: string;
  /** The image bytes, base64. */
  data: string;
}

/** One table per kind of taggable object; fields beyond these are JSON in `body`. */
export interface ObjectsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  created: string;
  updated: string;
  body: string;
}

export interface TagsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  created: string;
}

export interface TagLinksTable {
  tag_id: number;
  kind: string;
  object_id: number;
}

export interface EntityTransfersTable {
  id: Generated<number>;
  token: string;
  account_id: number;
  receiver_account_id: number | null;
  status: string;
  /** JSON text: `{"computes": [...]}`. */
  entities: string;
  created: string;
  updated: string;
  expiry: string;
}

/** Entries of `Database` for these tables. */
export interface OAuthTagsEventsTables {
  events: EventsTable;
  event_reads: EventReadsTable;
  event_seen: EventSeenTable;
  oauth_thumbnails: OAuthThumbnailsTable;
  compute_instances: ObjectsTable;
  domains: ObjectsTable;
  volumes: ObjectsTable;
  nodebalancers: ObjectsTable;
  tags: TagsTable;
  tag_links: TagLinksTable;
  entity_transfers: EntityTransfersTable;
}
