/**
 * Who changed it: the account event that explains each object changed, deleted or created outside
 * Terraform. Pure: the subjects come from the drift report, the events from `GET /account/events`
 * (read by src/cli/drift-events.ts, with the filters built here), and the rule picking the event is
 * `explain`.
 *
 * The rule: an event explains a change when it names the same entity (type and id, as the API
 * writes them), its action is of the change's kind (an update for a changed object, a delete for a
 * deleted one, a create for an unmanaged one), and it happened inside the window the lookup covers
 * (the feed's 90 days up to the lookup). Of several, the latest: the live value is the last
 * writer's, and an object that Terraform wrote afterwards would not have drifted.
 */

export type ChangeKind = "changed" | "deleted" | "created";

/** An event's entity as the API names it: a number id for most, a string for tags and OAuth clients. */
export interface EntityRef {
  readonly type: string;
  readonly id: number | string;
}

/** What the report asks about: one object and how it left the state. */
export interface DriftSubject {
  /** The report's key: a drift entry's address, or an unmanaged object's `type id`. */
  readonly key: string;
  readonly kind: ChangeKind;
  readonly entity: EntityRef;
}

/** The fields of an event the rule and the report read (never a secret: the API's events carry none). */
export interface EventLike {
  readonly id: number;
  readonly action: string;
  readonly created: string;
  readonly username: string | null;
  readonly entity: { readonly type: string; readonly id: number | string } | null;
}

/** The event that explains a subject, as the report shows it. */
export interface Explanation {
  readonly event_id: number;
  readonly action: string;
  /** The event's time, as the API writes it (UTC, `YYYY-MM-DDTHH:MM:SS`). */
  readonly when: string;
  /** null: the system did it (no user). */
  readonly username: string | null;
}

/** Per subject: the event, null when none explains it. */
export type Explanations = ReadonlyMap<string, Explanation | null>;

/** What the lookup came to: explanations, or why there are none (the events could not be read). */
export type EventLookup = { readonly explained: Explanations } | { readonly unavailable: string };

interface EntityKind {
  readonly entityType: string;
  readonly numericId: boolean;
  readonly actions: Readonly<Record<ChangeKind, readonly string[]>>;
}

/** The resource types whose objects the API's events name, with the actions of each kind. */
const ENTITY_KINDS: Readonly<Record<string, EntityKind>> = {
  mgmt_token: { entityType: "token", numericId: true, actions: { created: ["token_create"], changed: ["token_update"], deleted: ["token_delete"] } },
  mgmt_ssh_key: {
    entityType: "user_ssh_key",
    numericId: true,
    actions: { created: ["user_ssh_key_add"], changed: ["user_ssh_key_update"], deleted: ["user_ssh_key_delete"] },
  },
  mgmt_oauth_client: {
    entityType: "oauth_client",
    numericId: false,
    actions: { created: ["oauth_client_create"], changed: ["oauth_client_update", "oauth_client_secret_reset"], deleted: ["oauth_client_delete"] },
  },
  // A tag's id is its label; a tag has no update, so "changed" finds nothing.
  mgmt_tag: { entityType: "tag", numericId: false, actions: { created: ["tag_create"], changed: [], deleted: ["tag_delete"] } },
};

/** The entity an object of `resourceType` with import id `id` is in the events, or undefined when the events name none. */
export function entityOf(resourceType: string, id: string): EntityRef | undefined {
  const kind = ENTITY_KINDS[resourceType];
  if (kind === undefined || id === "") return undefined;
  if (!kind.numericId) return { type: kind.entityType, id };
  const n = Number(id);
  return Number.isSafeInteger(n) ? { type: kind.entityType, id: n } : undefined;
}

/** The actions that explain a change of `kind` to an entity of `entityType`. */
export function actionsFor(entityType: string, kind: ChangeKind): readonly string[] {
  return Object.values(ENTITY_KINDS).find((k) => k.entityType === entityType)?.actions[kind] ?? [];
}

export interface TimeWindow {
  /** API timestamps, inclusive. */
  readonly since: string;
  readonly until: string;
}

/** The event that explains the subject: same entity, an action of its kind, inside the window; the latest of several. */
export function explain(subject: DriftSubject, events: readonly EventLike[], window: TimeWindow): Explanation | null {
  const actions = actionsFor(subject.entity.type, subject.kind);
  let best: EventLike | undefined;
  for (const e of events) {
    if (e.entity === null || e.entity.type !== subject.entity.type || String(e.entity.id) !== String(subject.entity.id)) continue;
    if (!actions.includes(e.action)) continue;
    if (e.created < window.since || e.created > window.until) continue;
    if (best === undefined || e.created > best.created || (e.created === best.created && e.id > best.id)) best = e;
  }
  return best === undefined ? null : { event_id: best.id, action: best.action, when: best.created, username: best.username };
}

/** Subjects per request: each adds one `+or` branch to the X-Filter, which stays far below its 8,192 characters. */
export const SUBJECTS_PER_REQUEST = 20;

/**
 * The X-Filter of one request: events in the window, on any of the subjects' entities, with an
 * action of the subject's kind, newest first. Only the fields the event list filters on
 * (`entity.id`, `entity.type`, `action`, `created`).
 */
export function eventFilter(subjects: readonly DriftSubject[], window: TimeWindow): Record<string, unknown> {
  const branches = subjects.flatMap((s) => {
    const actions = actionsFor(s.entity.type, s.kind);
    if (actions.length === 0) return [];
    const action = actions.length === 1 ? actions[0]! : { "+or": [...actions] };
    return [{ "entity.type": s.entity.type, "entity.id": s.entity.id, action }];
  });
  return {
    "+and": [{ created: { "+gte": window.since } }, { created: { "+lte": window.until } }, { "+or": branches }],
    "+order_by": "created",
    "+order": "desc",
  };
}

/** The subjects in batches of one request each; subjects whose kind no action explains are left out (none can be found). */
export function eventBatches(subjects: readonly DriftSubject[]): DriftSubject[][] {
  const askable = subjects.filter((s) => actionsFor(s.entity.type, s.kind).length > 0);
  const out: DriftSubject[][] = [];
  for (let i = 0; i < askable.length; i += SUBJECTS_PER_REQUEST) out.push(askable.slice(i, i + SUBJECTS_PER_REQUEST));
  return out;
}
