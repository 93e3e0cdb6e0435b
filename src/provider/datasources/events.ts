/** data mgmt_events: the account's event feed (last 90 days), newest first. */
import { string } from "../framework/attributes";
import { attr, error, type Diagnostic } from "../framework/diagnostics";
import type { ObjectValue } from "../framework/value";
import { parseRfc3339 } from "../../contract/timestamps";
import { rfc3339 } from "../timestamps";
import { eventAttributes, eventValue } from "./event-shape";
import { apiValue } from "./filter";
import { defineListDataSource } from "./list";

const bound = (config: ObjectValue, name: "created_after" | "created_before"): string | undefined =>
  typeof config[name] === "string" ? (config[name] as string) : undefined;

const createdMs = (item: ObjectValue): number => parseRfc3339(String(item.created)) ?? Number.NaN;

export const eventsDataSource = defineListDataSource({
  typeName: "mgmt_events",
  description: "The account's events of the last 90 days, newest first (unless ordered otherwise), filtered by the API where it can.",
  path: "/account/events",
  itemsName: "events",
  itemDescription: "The matching events.",
  item: eventAttributes,
  arguments: {
    created_after: string("optional", "Only events created at or after this instant (RFC 3339); sent to the API as created +gte.", { validate: rfc3339 }),
    created_before: string("optional", "Only events created at or before this instant (RFC 3339); sent to the API as created +lte.", { validate: rfc3339 }),
  },
  validate(config): Diagnostic[] {
    const after = bound(config, "created_after");
    const before = bound(config, "created_before");
    const a = after === undefined ? undefined : parseRfc3339(after);
    const b = before === undefined ? undefined : parseRfc3339(before);
    return a !== undefined && b !== undefined && a > b
      ? [error("Invalid created_before", `created_before (${before}) is earlier than created_after (${after}).`, attr("created_before"))]
      : [];
  },
  conditions(config) {
    const api: Record<string, unknown>[] = [];
    const local: ((item: ObjectValue) => boolean)[] = [];
    const after = bound(config, "created_after");
    const before = bound(config, "created_before");
    // Whole seconds, as the API keeps them: the local check must agree with the server's.
    const ms = (t: string) => Math.floor(parseRfc3339(t)! / 1000) * 1000;
    if (after !== undefined) {
      api.push({ created: { "+gte": apiValue("timestamp", after) } });
      local.push((item) => createdMs(item) >= ms(after));
    }
    if (before !== undefined) {
      api.push({ created: { "+lte": apiValue("timestamp", before) } });
      local.push((item) => createdMs(item) <= ms(before));
    }
    return { api, local };
  },
  fetch: (client, o) => client.listEvents(o),
  toItem: eventValue,
});
