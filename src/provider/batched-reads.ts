/**
 * Batched reads. A refresh reads every object of a type once, in one provider process; one GET
 * per object costs a request each (1,000 keys, 1,000 requests, and rate limits). Instead the
 * first read of a collection fetches the whole of it in pages of 500, and the other reads of
 * that type are answered from that snapshot, each entry once: a second read of the same object
 * asks the API again, so nothing the process already saw is served stale twice. An id not in the
 * snapshot is fetched on its own (a fresh object is never missed; 404 still means gone); a write
 * of the type drops the snapshot. If the collection cannot be listed (a token without the list's
 * scope), reads fall back to one GET each.
 */
import type { MgmtClient } from "../client";
import { formatTimestamp, parseTimestamp } from "../contract/timestamps";
import type { Event } from "../contract/events";
import { TAGGED_OBJECT_TYPES } from "../contract/enums";
import { orNullIfGone } from "../client/errors";
import type { FetchableCollection } from "./resources/collection";
import { tagCollection } from "./resources/tag/collection";

export class BatchedCollection<T> {
  #listing: Promise<T[] | null> | undefined;
  #firstListing: Promise<T[] | null> | undefined;
  #snapshot: Promise<Map<string, T> | null> | undefined;

  constructor(
    private readonly enabled: boolean,
    private readonly list: () => AsyncIterable<T>,
    private readonly keyOf: (item: T) => string,
    private readonly getOne: (key: string) => Promise<T>,
  ) {}

  /** The object, or null when it no longer exists. */
  async read(key: string): Promise<T | null> {
    const known = this.enabled ? await (this.#snapshot ??= this.#listed().then((all) => all && new Map(all.map((item) => [this.keyOf(item), item])))) : null;
    const hit = known?.get(key);
    if (hit !== undefined) {
      known!.delete(key);
      return hit;
    }
    return orNullIfGone(() => this.getOne(key));
  }

  /**
   * Every object of the collection as this instance first listed it (the listing the reads start
   * from, whether or not reads are batched), or null when it cannot be listed. A plan looks here
   * for an object it is about to create again (`twins.ts`). The instance's own writes keep it: each
   * object they touch is in the state the run works on, which a twin check leaves out, so listing
   * again after every create (an apply plans each key again, one create after another) would find
   * nothing more, at the price of a listing per key.
   */
  all(): Promise<readonly T[] | null> {
    return (this.#firstListing ??= this.#listed());
  }

  /** After a write of this type: the next read lists again. */
  invalidate(): void {
    this.#listing = undefined;
    this.#snapshot = undefined;
  }

  #listed(): Promise<T[] | null> {
    return (this.#listing ??= collectOrNull(this.list()));
  }
}

/** A whole listing, or null when it cannot be had (a token without the list's scope): reads then go one by one and report their own errors. */
async function collectOrNull<T>(items: AsyncIterable<T>): Promise<T[] | null> {
  try {
    const all: T[] = [];
    for await (const item of items) all.push(item);
    return all;
  } catch {
    return null;
  }
}

async function snapshot<T>(items: AsyncIterable<T>, keyOf: (item: T) => string): Promise<Map<string, T> | null> {
  const all = await collectOrNull(items);
  return all && new Map(all.map((item) => [keyOf(item), item]));
}

/** The events feed reaches back this far (the contract: 90 days); a tag known since before is read. */
const FEED_REACH_MS = 89 * 24 * 3600_000;
/** Event stamps are whole seconds of the server's clock, which is not the provider's. */
const CLOCK_SLACK_MS = 60_000;
/**
 * A question to the feed reaches this much further back than the mark that asked it: the reads
 * of one refresh come in any order, and their marks spread over the last apply, so one question
 * serves them all (the events it asks for are rare, so the extra hour costs little).
 */
const WINDOW_LEAD_MS = 3600_000;
/**
 * The events that may change which objects carry a tag: the tag deleted (a label is unique, so
 * made again only after a delete), and anything happening to a taggable object (deleted,
 * transferred, tagged by its own operations), whatever the action's name.
 */
const TAG_CHANGES = {
  "+or": [{ action: "tag_delete" }, { action: "entity_transfer_accept" }, ...TAGGED_OBJECT_TYPES.map((type) => ({ "entity.type": type }))],
};

interface ChangeWindow {
  /** The feed was asked for everything stamped from here (ms)... */
  readonly from: number;
  /** ...at this time of the provider's clock, up to which it vouches. */
  readonly asked: Date;
  readonly events: Promise<Event[] | null>;
}

/**
 * Tags read in a batch. The API shows a tag's objects only one tag at a time (`GET /tags/{label}`)
 * and lists no objects with their tags, so a batch answers a tag from what the state holds, when
 * the API vouches that it still holds: the tag is among the listed labels, and the events feed,
 * asked once for every change since, shows nothing that could have changed its objects since the
 * provider last read them (`since`, kept in the resource's private state). Anything else (no mark,
 * a mark older than the feed reaches, a token without `events:read_only`, a listing that fails, a
 * change, the same tag asked twice) leaves the tag to its own read.
 */
export class TagReads {
  #labels: Promise<Map<string, unknown> | null> | undefined;
  #window: ChangeWindow | undefined;

  constructor(
    private readonly enabled: boolean,
    private readonly client: MgmtClient,
    private readonly now: () => Date,
  ) {}

  /** The time up to which the tag's objects are vouched unchanged since `since`, or null when the tag must be read. */
  async unchangedSince(label: string, since: Date): Promise<Date | null> {
    if (!this.enabled || this.now().getTime() - since.getTime() > FEED_REACH_MS) return null;
    const labels = await (this.#labels ??= snapshot(tagCollection.list(this.client), tagCollection.key));
    if (!labels?.delete(label)) return null;
    const from = since.getTime() - CLOCK_SLACK_MS;
    const window = this.#windowFrom(from);
    const events = await window.events;
    if (events === null) return null;
    const mayBeThisTag = (e: Event) => e.action !== "tag_delete" || e.entity === null || String(e.entity.id) === label;
    const changed = events.some((e) => parseTimestamp(e.created).getTime() >= from && mayBeThisTag(e));
    return changed ? null : window.asked;
  }

  /** After a tag write: list and ask again. */
  invalidate(): void {
    this.#labels = undefined;
    this.#window = undefined;
  }

  /** One question to the feed serves every mark after its start; an earlier mark asks again, from further back. */
  #windowFrom(needed: number): ChangeWindow {
    if (this.#window && this.#window.from <= needed) return this.#window;
    const from = needed - WINDOW_LEAD_MS;
    const asked = this.now();
    const filter = { "+and": [{ created: { "+gte": formatTimestamp(new Date(from)) } }, TAG_CHANGES] };
    return (this.#window = { from, asked, events: collectOrNull(this.client.listEvents({ filter })) });
  }
}

/**
 * The collections the managed resources read, each made on its first read from the type's own
 * collection (its list, key and fetch-one), and keyed by the resource type whose objects it holds;
 * the singletons are one request each already. The provider server reports every apply of a type
 * (`written`), so a snapshot is dropped whenever its type is written and no resource has to remember to.
 */
export function batchedReads(client: MgmtClient, enabled: boolean, now: () => Date) {
  const tags = new TagReads(enabled, client, now);
  const tagReads: Omit<TagReads, "invalidate"> = tags;
  const byType = new Map<string, BatchedCollection<unknown>>();
  return {
    mgmt_tag: tagReads,
    /** The batched reads of a collection: resources see only the read side, dropping a snapshot is the framework's. */
    of<T>(c: FetchableCollection<T>): Omit<BatchedCollection<T>, "invalidate"> {
      // One collection per type name (each type's folder declares its own), so the entry holds this collection's objects.
      let reads = byType.get(c.typeName) as BatchedCollection<T> | undefined;
      if (!reads) {
        reads = new BatchedCollection(
          enabled,
          () => c.list(client),
          c.key,
          (key) => c.get(client, key),
        );
        byType.set(c.typeName, reads as BatchedCollection<unknown>);
      }
      return reads;
    },
    /** An apply of this resource type is changing its objects: the next read of the type lists again. */
    written(typeName: string): void {
      if (typeName === tagCollection.typeName) tags.invalidate();
      byType.get(typeName)?.invalidate();
    },
  };
}
export type BatchedReads = ReturnType<typeof batchedReads>;
