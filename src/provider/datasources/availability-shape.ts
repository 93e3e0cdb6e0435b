/** A region's availability as `mgmt_availability` and `mgmt_availabilities` show it. */
import type { RegionAvailability } from "../../contract/account";
import { list, string } from "../framework/attributes";
import type { Attributes, StateOf } from "../framework/value-types";

export const availabilityAttributes = {
  region: string("computed", "The region's slug."),
  available: list("computed", "Services the account may use in the region.", "string"),
  unavailable: list("computed", "Services the account may not use in the region.", "string"),
} satisfies Attributes;

export const availabilityValue = (a: RegionAvailability): StateOf<typeof availabilityAttributes> => ({
  region: a.region,
  available: [...a.available],
  unavailable: [...a.unavailable],
});
