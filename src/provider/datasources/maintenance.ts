/** data mgmt_maintenance: upcoming and ongoing maintenance on the account's objects. */
import { string } from "../framework/attributes";
import { toRfc3339 } from "../timestamps";
import { entityRef, entityRefAttribute } from "./common";
import { instantAttribute } from "./filter";
import { defineListDataSource } from "./list";

export const maintenanceDataSource = defineListDataSource({
  typeName: "mgmt_maintenance",
  description: "Maintenance scheduled or under way on objects the user may view (canceled maintenance is not listed), filtered by the API where it can.",
  path: "/account/maintenance",
  itemsName: "maintenance",
  itemDescription: "The matching maintenance items.",
  item: {
    entity: entityRefAttribute("The object under maintenance (a compute instance)."),
    reason: string("computed", "Why the maintenance happens."),
    status: string("computed", "The maintenance's status, e.g. pending or started."),
    type: string("computed", "The kind of maintenance, e.g. reboot or migrate."),
    when: instantAttribute("When the maintenance starts."),
  },
  fetch: (client, o) => client.listMaintenance(o),
  toItem: (m) => ({ entity: entityRef(m.entity), reason: m.reason, status: m.status, type: m.type, when: toRfc3339(m.when) }),
});
