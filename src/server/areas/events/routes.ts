/** `/account/events`: the feed, one event, and the two mark operations. */
import { API_FILTERABLE, EmptyBody, Event } from "../../../contract";
import type { EventService } from "./service";
import type { EventView } from "./service";
import { answer, pageView } from "../../http/present";
import { pathId, type Router } from "../../http/router";

export const eventView = (e: EventView): Event => ({
  action: e.action,
  created: e.created,
  duration: e.duration,
  entity: e.entity,
  id: e.id,
  message: e.message,
  percent_complete: e.percent_complete,
  rate: e.rate,
  read: e.read,
  secondary_entity: e.secondary_entity,
  seen: e.seen,
  status: e.status,
  time_remaining: e.time_remaining,
  username: e.username,
});

export function eventRoutes(r: Router, domain: { events: EventService }): void {
  r.list(
    "/account/events",
    "events:read_only",
    {
      item: Event,
      // The contract's table types entity.id as a number (what the provider sends); the server
      // writes string ids too (tags, OAuth clients, euuids, transfer tokens) and takes either.
      filter: { ...API_FILTERABLE["/account/events"], "entity.id": "id" },
      summary: "List events of the last 90 days",
      mark: () => domain.events.listMark(),
      filtered: async ({ actor }, query, filter) => {
        const page = await domain.events.listWhere(actor, query, filter);
        return page && pageView(page, eventView);
      },
    },
    async ({ actor }, query) => pageView(await domain.events.list(actor, query), eventView),
  );

  r.get("/account/events/:eventId", "events:read_only", { summary: "View an event", response: Event }, async ({ req, actor }) =>
    answer(Event, eventView(await domain.events.get(actor, pathId(req, "eventId")))),
  );

  r.post("/account/events/:eventId/read", "events:read_only", { summary: "Mark an event as read", response: EmptyBody }, async ({ req, actor }) => {
    await domain.events.markRead(actor, pathId(req, "eventId"));
    return answer(EmptyBody, {});
  });

  r.post(
    "/account/events/:eventId/seen",
    "events:read_only",
    { summary: "Mark events up to this one as seen", response: EmptyBody },
    async ({ req, actor }) => {
      await domain.events.markSeen(actor, pathId(req, "eventId"));
      return answer(EmptyBody, {});
    },
  );
}
