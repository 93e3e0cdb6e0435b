/** An event as both `mgmt_event` and the items of `mgmt_events` show it. */
import type { Event } from "../../contract/events";
import { bool, int, number, string } from "../framework/attributes";
import type { Attributes, StateOf } from "../framework/value-types";
import { toRfc3339 } from "../timestamps";
import { entityRef, entityRefAttribute } from "./common";
import { instantAttribute } from "./filter";

export const eventAttributes = {
  id: int("computed", "The event's id."),
  action: string("computed", "What happened, e.g. user_ssh_key_add or token_create; new actions may appear."),
  created: instantAttribute("When the event happened."),
  duration: number("computed", "Seconds the event took to complete."),
  entity: entityRefAttribute("The object the event is about; null when none."),
  secondary_entity: entityRefAttribute("A second object some actions involve; null when none."),
  message: string("computed", "Extra information, such as a failure's detail; null when none."),
  percent_complete: int("computed", "Estimated progress; null when not applicable."),
  rate: string("computed", "Progress rate of migrations and resizes; null otherwise."),
  read: bool("computed", "Whether the event was marked read."),
  seen: bool("computed", "Whether the event was marked seen."),
  status: string("computed", "failed, finished, notification, scheduled or started."),
  time_remaining: string("computed", "Time left of an in-progress migration; null otherwise."),
  username: string("computed", "The user who caused the event; null for the system."),
} satisfies Attributes;

export const eventValue = (e: Event): StateOf<typeof eventAttributes> => ({
  id: e.id,
  action: e.action,
  created: toRfc3339(e.created),
  duration: e.duration,
  entity: entityRef(e.entity),
  secondary_entity: entityRef(e.secondary_entity),
  message: e.message,
  percent_complete: e.percent_complete,
  rate: e.rate,
  read: e.read,
  seen: e.seen,
  status: e.status,
  time_remaining: e.time_remaining,
  username: e.username,
});
