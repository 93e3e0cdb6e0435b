/** data mgmt_availabilities: which services every region offers the account. */
import { availabilityAttributes, availabilityValue } from "./availability-shape";
import { defineListDataSource } from "./list";

export const availabilitiesDataSource = defineListDataSource({
  typeName: "mgmt_availabilities",
  description: "Which services each region offers the account (every region).",
  path: "/account/availability",
  itemsName: "availabilities",
  itemDescription: "One entry per region.",
  item: availabilityAttributes,
  fetch: (client, o) => client.listAvailabilities(o),
  toItem: availabilityValue,
});
