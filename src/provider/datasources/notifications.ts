/** data mgmt_notifications: the account's current notifications. */
import { string } from "../framework/attributes";
import { entityRef, entityRefAttribute, rfc3339OrNull } from "./common";
import { instantAttribute } from "./filter";
import { defineListDataSource } from "./list";

export const notificationsDataSource = defineListDataSource({
  typeName: "mgmt_notifications",
  description: "The account's notifications; each disappears when its cause is resolved. The API filters none of their fields: filters apply after paging.",
  path: "/account/notifications",
  itemsName: "notifications",
  itemDescription: "The matching notifications.",
  item: {
    label: string("computed", "Short title."),
    message: string("computed", "What the notification says."),
    body: string("computed", "Longer text; null when none."),
    severity: string("computed", "How serious it is, e.g. minor, major or critical."),
    type: string("computed", "The kind of notification, e.g. maintenance_scheduled."),
    entity: entityRefAttribute("The object the notification is about; null when none."),
    when: instantAttribute("When the notified condition starts", true),
    until: instantAttribute("When the notified condition ends", true),
  },
  fetch: (client, o) => client.listNotifications(o),
  toItem: (n) => ({
    label: n.label,
    message: n.message,
    body: n.body,
    severity: n.severity,
    type: n.type,
    entity: entityRef(n.entity),
    when: rfc3339OrNull(n.when),
    until: rfc3339OrNull(n.until),
  }),
});
