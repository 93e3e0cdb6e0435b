/** data mgmt_availability: which services one region offers the account. */
import type { ProviderContext } from "../config";
import { string } from "../framework/attributes";
import { defineDataSource } from "../framework/resource";
import { availabilityAttributes, availabilityValue } from "./availability-shape";

export const availabilityDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_availability",
  description: "Which services one region offers the account.",
  attributes: {
    ...availabilityAttributes,
    id: string("computed", "The region's slug."),
    region: string("required", "The region's slug, e.g. us-east.", { validate: (v) => (v.trim() === "" ? "must not be empty" : undefined) }),
  },
  async read({ ctx, signal }, config) {
    const region = config.region;
    const a = await ctx.client.getAvailability(region, { signal });
    return { id: a.region, ...availabilityValue(a), region: a.region };
  },
});
