/** The event feed: every area records into it; `/account/events` reads it. */
import type { Deps } from "../../domain/context";
import type { GrantRepos } from "../profile/grants";
import { defineArea } from "../area";
import { eventRoutes } from "./routes";
import { EventService } from "./service";
import { eventRepos, type EventRepos } from "./store";

export const events = defineArea({
  repos: eventRepos,
  services: (deps: Deps<EventRepos & GrantRepos>) => ({ events: new EventService(deps) }),
  routes: eventRoutes,
});
