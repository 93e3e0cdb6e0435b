/** A region's availability as `mgmt_availability` and `mgmt_availabilities` show it. */
import type { RegionAvailability } from "../../contract/account";
import { list, string } from "../framework/attributes";
import type { Attributes } from "../framework/resource";
import type { ObjectValue } from "../framework/value";

export const availabilityAttributes: Attributes = {
  region: string("computed", "The region's slug."),
  available: list("computed", "Services the account may use in the region.", "string"),
  unavailable: list("computed", "Services the account may not use in the region.", "string"),
};

export const availabilityValue = (a: RegionAvailability): ObjectValue => ({ region: a.region, available: [...a.available], unavailable: [...a.unavailable] });
