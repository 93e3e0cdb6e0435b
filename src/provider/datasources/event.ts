/** data mgmt_event: one event by id. */
import { int } from "../framework/attributes";
import { defineDataSource } from "../framework/resource";
import type { ProviderContext } from "../config";
import { positiveIdReason } from "./common";
import { eventAttributes, eventValue } from "./event-shape";

export const eventDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_event",
  description: "One event of the account's feed, by id.",
  attributes: { ...eventAttributes, id: int("required", "The event's id.", { validate: positiveIdReason }) },
  async read({ ctx, signal }, config) {
    const event = await ctx.client.getEvent(config.id, { signal });
    return { ...eventValue(event), id: event.id };
  },
});
