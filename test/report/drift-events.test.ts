/** @tier unit */
/** Who did it: the rule picking the account event that explains a drift, the filters asking for them, and the CI token's warning. */
import { API_FILTERABLE } from "../../src/contract/filterable";
import { parseFilter } from "../../src/contract/x-filter";
import { ciTokenCallout, ciTokenStatus, CI_TOKEN_NOTICE_MS } from "../../src/report/ci-token";
import {
  actionsFor,
  entityOf,
  eventBatches,
  eventFilter,
  explain,
  SUBJECTS_PER_REQUEST,
  type DriftSubject,
  type EventLike,
} from "../../src/report/drift-events";
import { driftReportJson, renderDriftMarkdown, type DriftReport } from "../../src/report/drift-report";
import { FULL } from "../../src/report/truncate";

/** Whether the event list (its filterable fields as the server declares them) accepts the filter. */
const contractFilterOk = (filter: unknown) => parseFilter(JSON.stringify(filter), { ...API_FILTERABLE["/account/events"], "entity.id": "id" }) !== null;

const window = { since: "2026-09-01T00:00:00", until: "2026-12-01T12:00:00" };
let nextId = 1;
const ev = (action: string, entity: EventLike["entity"], created: string, username: string | null = "alice"): EventLike => ({
  id: nextId++,
  action,
  created,
  username,
  entity,
});
const key = (kind: DriftSubject["kind"], type: string, id: string): DriftSubject => ({ key: `${type}.${id}`, kind, entity: entityOf(type, id)! });

describe("entityOf", () => {
  it("names objects as the events do: numeric ids for tokens and keys, strings for OAuth clients and tags", () => {
    expect(entityOf("mgmt_token", "5")).toEqual({ type: "token", id: 5 });
    expect(entityOf("mgmt_ssh_key", "12")).toEqual({ type: "user_ssh_key", id: 12 });
    expect(entityOf("mgmt_oauth_client", "0a1b")).toEqual({ type: "oauth_client", id: "0a1b" });
    expect(entityOf("mgmt_tag", "prod")).toEqual({ type: "tag", id: "prod" });
    // Singletons and ids that are not the API's leave the lookup out.
    expect(entityOf("mgmt_account_contact", "account")).toBeUndefined();
    expect(entityOf("mgmt_token", "not-a-number")).toBeUndefined();
  });
});

describe("explain: which event explains which change", () => {
  const key5 = key("changed", "mgmt_ssh_key", "5");

  it("takes an event on the same entity whose action is of the change's kind", () => {
    const events = [
      ev("user_ssh_key_add", { type: "user_ssh_key", id: 5 }, "2026-11-01T10:00:00", "ci"),
      ev("user_ssh_key_update", { type: "user_ssh_key", id: 5 }, "2026-11-20T10:00:00", "bob"),
    ];
    expect(explain(key5, events, window)).toMatchObject({ action: "user_ssh_key_update", username: "bob", when: "2026-11-20T10:00:00" });
    expect(explain(key("created", "mgmt_ssh_key", "5"), events, window)).toMatchObject({ action: "user_ssh_key_add", username: "ci" });
    expect(explain(key("deleted", "mgmt_ssh_key", "5"), events, window)).toBeNull();
  });

  it("never takes another entity: another id, or the same id of another type", () => {
    const events = [
      ev("user_ssh_key_update", { type: "user_ssh_key", id: 6 }, "2026-11-20T10:00:00"),
      ev("token_update", { type: "token", id: 5 }, "2026-11-20T10:00:00"),
      ev("user_ssh_key_update", null, "2026-11-20T10:00:00"),
    ];
    expect(explain(key5, events, window)).toBeNull();
  });

  it("compares ids as the API writes them, a number or a string alike", () => {
    expect(explain(key5, [ev("user_ssh_key_update", { type: "user_ssh_key", id: "5" }, "2026-11-20T10:00:00")], window)).not.toBeNull();
  });

  it("keeps to the window: an event before it or after it explains nothing", () => {
    const events = [
      ev("user_ssh_key_update", { type: "user_ssh_key", id: 5 }, "2026-08-31T23:59:59"),
      ev("user_ssh_key_update", { type: "user_ssh_key", id: 5 }, "2026-12-01T12:00:01"),
    ];
    expect(explain(key5, events, window)).toBeNull();
    expect(explain(key5, events, { since: "2026-08-31T23:59:59", until: window.until })).toMatchObject({ when: "2026-08-31T23:59:59" });
  });

  it("of several, the latest (the live value is the last writer's), ties by event id", () => {
    const a = ev("user_ssh_key_update", { type: "user_ssh_key", id: 5 }, "2026-11-21T10:00:00", "carol");
    const b = ev("user_ssh_key_update", { type: "user_ssh_key", id: 5 }, "2026-11-20T10:00:00", "bob");
    const c = ev("user_ssh_key_update", { type: "user_ssh_key", id: 5 }, "2026-11-21T10:00:00", "dave");
    expect(explain(key5, [b, a, c], window)).toMatchObject({ username: "dave", event_id: c.id });
  });

  it("an OAuth client's secret reset is a change; a tag has no update, so nothing explains a changed tag", () => {
    expect(actionsFor("oauth_client", "changed")).toEqual(["oauth_client_update", "oauth_client_secret_reset"]);
    expect(explain(key("changed", "mgmt_tag", "prod"), [ev("tag_create", { type: "tag", id: "prod" }, "2026-11-20T10:00:00")], window)).toBeNull();
    expect(explain(key("deleted", "mgmt_tag", "prod"), [ev("tag_delete", { type: "tag", id: "prod" }, "2026-11-20T10:00:00", null)], window)).toEqual(
      expect.objectContaining({ username: null, action: "tag_delete" }),
    );
  });
});

describe("the requests", () => {
  it("asks only the event list's filterable fields, in the grammar the server accepts, newest first", () => {
    const subjects = [key("changed", "mgmt_oauth_client", "ab12"), key("deleted", "mgmt_token", "7"), key("created", "mgmt_tag", "x")];
    const filter = eventFilter(subjects, window);
    expect(filter).toEqual({
      "+and": [
        { created: { "+gte": window.since } },
        { created: { "+lte": window.until } },
        {
          "+or": [
            { "entity.type": "oauth_client", "entity.id": "ab12", action: { "+or": ["oauth_client_update", "oauth_client_secret_reset"] } },
            { "entity.type": "token", "entity.id": 7, action: "token_delete" },
            { "entity.type": "tag", "entity.id": "x", action: "tag_create" },
          ],
        },
      ],
      "+order_by": "created",
      "+order": "desc",
    });
    expect(contractFilterOk(filter)).toBe(true);
  });

  it("batches subjects so the number of requests is bounded by the subjects, not the events; kinds nothing explains ask nothing", () => {
    const many = Array.from({ length: SUBJECTS_PER_REQUEST * 2 + 1 }, (_, i) => key("changed", "mgmt_ssh_key", String(i + 1)));
    const batches = eventBatches([...many, key("changed", "mgmt_tag", "t")]);
    expect(batches.map((b) => b.length)).toEqual([SUBJECTS_PER_REQUEST, SUBJECTS_PER_REQUEST, 1]);
    // The largest batch stays far below the header's 8,192 characters.
    expect(JSON.stringify(eventFilter(batches[0]!, window)).length).toBeLessThan(4096);
  });
});

describe("the report carries who", () => {
  const report: DriftReport = {
    drift: [
      {
        address: "mgmt_oauth_client.app",
        type: "mgmt_oauth_client",
        actions: ["update"],
        attributes: [{ path: ["label"], name: "label", before: '"app"', after: '"renamed"', forcesReplacement: false }],
      },
      { address: "mgmt_tag.old", type: "mgmt_tag", actions: ["delete"], attributes: [] },
    ],
    unmanaged: { unmanaged: [{ type: "mgmt_tag", importId: "stray", label: "stray", to: "mgmt_tag.stray" }], known: [], types: ["mgmt_tag"] },
    events: {
      explained: new Map([
        ["mgmt_oauth_client.app", { event_id: 41, action: "oauth_client_update", when: "2026-11-20T10:00:00", username: "bob" }],
        ["mgmt_tag.old", null],
        ["mgmt_tag stray", { event_id: 43, action: "tag_create", when: "2026-11-21T09:00:00", username: "bob" }],
      ]),
    },
  };

  it("in the markdown: by whom, when and which action; or that no event explains it", () => {
    const md = renderDriftMarkdown(report, FULL);
    expect(md).toContain("- `mgmt_oauth_client.app` (by `bob`, 2026-11-20 10:00:00 UTC (`oauth_client_update`, event 41))");
    expect(md).toContain("- `mgmt_tag.old` (no account event explains it)");
    expect(md).toContain("(created by `bob`, 2026-11-21 09:00:00 UTC (`tag_create`, event 43))");
  });

  it("in the JSON: `who` per entry, null for none", () => {
    const json = driftReportJson(report);
    expect(json.drift.map((d) => d.who)).toEqual([{ event_id: 41, action: "oauth_client_update", when: "2026-11-20T10:00:00", username: "bob" }, null]);
    expect(json.unmanaged![0]!.who).toMatchObject({ username: "bob", action: "tag_create" });
  });

  it("says why it is not known when the events could not be read", () => {
    const blind: DriftReport = { ...report, events: { unavailable: "the token cannot read GET /account/events (HTTP 401)" } };
    expect(renderDriftMarkdown(blind, FULL)).toContain("> Who made these changes is not known: the token cannot read GET /account/events (HTTP 401)");
    expect(driftReportJson(blind)).toMatchObject({ events_unavailable: "the token cannot read GET /account/events (HTTP 401)" });
    expect(driftReportJson(blind).drift[0]).not.toHaveProperty("who");
  });
});

describe("the CI's own token", () => {
  const now = new Date("2026-12-01T00:00:00Z");
  const token = (expiry: string | null) => ({ id: 9, label: "ci", expiry });

  it("inside the managing stack's renew_before: renewal; else within the notice: expiring; past it: expired", () => {
    const week = 7 * 86_400_000;
    expect(ciTokenStatus(token("2026-12-05T00:00:00"), now, { address: "mgmt_token.ci", renewBefore: "168h", renewBeforeMs: week })).toMatchObject({
      state: "renewal",
      daysLeft: 4,
      managedAs: "mgmt_token.ci",
    });
    expect(ciTokenStatus(token("2026-12-10T00:00:00"), now, { address: "mgmt_token.ci", renewBefore: "168h", renewBeforeMs: week }).state).toBe("expiring");
    expect(ciTokenStatus(token("2026-12-10T00:00:00"), now).state).toBe("expiring");
    expect(ciTokenStatus(token(new Date(now.getTime() + CI_TOKEN_NOTICE_MS + 1000).toISOString().slice(0, 19)), now).state).toBe("ok");
    expect(ciTokenStatus(token("2026-11-30T23:59:59"), now).state).toBe("expired");
    expect(ciTokenStatus(token(null), now).state).toBe("ok");
  });

  it("warns in the report and the JSON, naming the token by id and label, never its value", () => {
    const s = ciTokenStatus(token("2026-12-05T00:00:00"), now);
    const lines = ciTokenCallout(s).join("\n");
    expect(lines).toContain('The token this CI run acts with (id `9`, `"ci"`) expires 2026-12-05, in 4 days.');
    expect(lines).toContain("Rotating the CI token");
    expect(ciTokenCallout(ciTokenStatus(token(null), now))).toEqual([]);
    const md = renderDriftMarkdown({ drift: [], ciToken: s }, FULL);
    expect(md.indexOf("[!WARNING]")).toBeGreaterThan(0);
    expect(driftReportJson({ drift: [], ciToken: s }).ci_token).toEqual({ id: 9, label: "ci", expiry: "2026-12-05T00:00:00", state: "expiring", days_left: 4 });
  });
});
