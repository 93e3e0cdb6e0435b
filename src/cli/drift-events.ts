/**
 * The API side of the drift report's "who" and of its CI-token warning: the account events read
 * with the filters src/report/drift-events.ts builds (one request per batch of subjects, a bounded
 * number of follow-ups), and the acting token found in `/profile/tokens` by its prefix.
 * A failure here never fails the drift run: the report says what could not be read.
 */
import type { MgmtClient } from "../client";
import { ApiError } from "../client/errors";
import { TOKEN_PREFIX_LENGTH, type PersonalAccessToken } from "../contract/tokens";
import { formatTimestamp, parseDuration } from "../contract/timestamps";
import { tokenCollection } from "../provider/resources/token/collection";
import { ciTokenStatus, type CiTokenStatus } from "../report/ci-token";
import { entityOf, eventBatches, eventFilter, explain, type DriftSubject, type EventLike, type EventLookup, type Explanation } from "../report/drift-events";
import { isDeleted, unmanagedKey } from "../report/drift-report";
import type { Plan, StateResource } from "../report/plan-model";
import type { ResourceEntry } from "../report/summary";
import type { UnmanagedObject } from "../report/unmanaged";
import { UNMANAGED_TYPES } from "./unmanaged-types";

/** Events read per request: the API's largest page. */
const PAGE = 500;
/** At most this many single-subject requests after the batches, for subjects a full page crowded out. */
export const MAX_FOLLOW_UPS = 10;
/** How far back the API's feed reaches. */
const FEED_DAYS = 90;

/**
 * The recorded values of each drifted object, by address: the drift's `before` (a refresh-only
 * plan's prior state is the refreshed one, which no longer holds a deleted object).
 */
export function recordedValues(plan: Plan): ReadonlyMap<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const rc of plan.resource_drift ?? []) {
    const before = rc.change.before;
    if (typeof before === "object" && before !== null && !Array.isArray(before)) out.set(rc.address, before as Record<string, unknown>);
  }
  return out;
}

/** The subjects of a report: each drift entry (its id from its recorded values) and each unmanaged object. */
export function driftSubjects(
  drift: readonly ResourceEntry[],
  recorded: ReadonlyMap<string, Record<string, unknown>>,
  unmanaged: readonly UnmanagedObject[],
): DriftSubject[] {
  const out: DriftSubject[] = [];
  for (const e of drift) {
    const values = recorded.get(e.address) ?? {};
    const id = UNMANAGED_TYPES.find((t) => t.type === e.type)?.stateId(values);
    const entity = id === undefined ? undefined : entityOf(e.type, id);
    if (entity) out.push({ key: e.address, kind: isDeleted(e) ? "deleted" : "changed", entity });
  }
  for (const o of unmanaged) {
    const entity = entityOf(o.type, o.importId);
    if (entity) out.push({ key: unmanagedKey(o), kind: "created", entity });
  }
  return out;
}

const why = (err: unknown): string => {
  if (err instanceof ApiError && (err.status === 401 || err.status === 403))
    return `the token cannot read GET /account/events (HTTP ${err.status}); give the drift job's token events:read_only as well`;
  return `GET /account/events failed: ${err instanceof Error ? err.message : String(err)}`;
};

/** The first page (newest first) of events matching `filter`, and whether it was full (more may follow). */
async function firstPage(client: MgmtClient, filter: Record<string, unknown>): Promise<{ events: EventLike[]; full: boolean }> {
  const events: EventLike[] = [];
  // The iteration asks for page 2 only when it goes past page 1's items: stopping here sends one request.
  for await (const e of client.listEvents({ filter, pageSize: PAGE })) {
    events.push(e);
    if (events.length === PAGE) break;
  }
  return { events, full: events.length === PAGE };
}

/**
 * Each subject's explanation from the events of the feed's window up to `now`: one request per
 * batch of subjects, then at most MAX_FOLLOW_UPS requests for subjects a full page left unexplained
 * (those beyond stay unknown: not in the map).
 */
export async function lookUpEvents(client: MgmtClient, subjects: readonly DriftSubject[], now: Date): Promise<EventLookup> {
  const window = { since: formatTimestamp(now.getTime() - FEED_DAYS * 86_400_000), until: formatTimestamp(now.getTime() + 60_000) };
  const explained = new Map<string, Explanation | null>();
  const crowded: DriftSubject[] = [];
  try {
    for (const batch of eventBatches(subjects)) {
      const { events, full } = await firstPage(client, eventFilter(batch, window));
      for (const s of batch) {
        const e = explain(s, events, window);
        if (e !== null || !full) explained.set(s.key, e);
        else crowded.push(s);
      }
    }
    for (const s of crowded.slice(0, MAX_FOLLOW_UPS)) explained.set(s.key, explain(s, (await firstPage(client, eventFilter([s], window))).events, window));
  } catch (err) {
    return { unavailable: why(err) };
  }
  // A kind no action explains (a tag is never updated): nothing to ask, and nothing explains it.
  for (const s of subjects) if (!explained.has(s.key) && !crowded.includes(s)) explained.set(s.key, null);
  return { explained };
}

/**
 * The status of the token the run acts with: found in `/profile/tokens` by its first 16 characters,
 * with the renew_before of the mgmt_token in `state` that holds it (same id), if any. Undefined
 * when the list cannot be read or does not show it (an OAuth token, a proxy session).
 */
export async function ciToken(client: MgmtClient, actingToken: string, state: readonly StateResource[], now: Date): Promise<CiTokenStatus | undefined> {
  if (actingToken.length < TOKEN_PREFIX_LENGTH) return undefined;
  const prefix = actingToken.slice(0, TOKEN_PREFIX_LENGTH);
  let found: PersonalAccessToken | undefined;
  try {
    for await (const t of tokenCollection.list(client))
      if (t.token.slice(0, TOKEN_PREFIX_LENGTH) === prefix) {
        found = t;
        break;
      }
  } catch {
    return undefined;
  }
  if (found === undefined) return undefined;
  const held = state.find((r) => r.type === "mgmt_token" && r.values?.id === String(found.id));
  const renewBefore = typeof held?.values?.renew_before === "string" ? held.values.renew_before : undefined;
  const renewBeforeMs = renewBefore === undefined ? undefined : parseDuration(renewBefore);
  return ciTokenStatus(
    { id: found.id, label: found.label, expiry: found.expiry },
    now,
    held
      ? { address: held.address, ...(renewBefore !== undefined ? { renewBefore } : {}), ...(renewBeforeMs !== undefined ? { renewBeforeMs } : {}) }
      : undefined,
  );
}
