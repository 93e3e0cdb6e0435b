/** The event feed: every area records into it; `/account/events` reads it. */
import type { Deps } from "../../domain/context";
import type { GrantRepos } from "../../auth/grants";
import { defineArea } from "../area";
import { eventRoutes } from "./routes";
import { EventService } from "./service";
import { eventRepos, type EventRepos } from "./store";

/** What the other areas use: the one way events get into the feed. */
export { noteEvent, recordEvent } from "./service";

export const events = defineArea({
  repos: eventRepos,
  services: (deps: Deps<EventRepos & GrantRepos>) => ({ events: new EventService(deps) }),
  routes: eventRoutes,
});
