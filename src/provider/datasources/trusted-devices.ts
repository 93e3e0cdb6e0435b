/** data mgmt_trusted_devices: the profile's remembered (trusted) devices. */
import { int, string } from "../framework/attributes";
import { toRfc3339 } from "../timestamps";
import { instantAttribute } from "./filter";
import { defineListDataSource } from "./list";

export const trustedDevicesDataSource = defineListDataSource({
  typeName: "mgmt_trusted_devices",
  description: "Devices the user the provider acts for chose to remember at login. The API filters none of their fields: filters apply after paging.",
  path: "/profile/devices",
  itemsName: "trusted_devices",
  itemDescription: "The matching devices.",
  item: {
    id: int("computed", "The device's id."),
    user_agent: string("computed", "Browser user agent that created the session."),
    last_remote_addr: string("computed", "Last IP address that authenticated with it."),
    created: instantAttribute("When the remembered session started."),
    expiry: instantAttribute("When the remembered session ends."),
    last_authenticated: instantAttribute("When it last authenticated."),
  },
  fetch: (client, o) => client.listTrustedDevices(o),
  toItem: (d) => ({
    id: d.id,
    user_agent: d.user_agent,
    last_remote_addr: d.last_remote_addr,
    created: toRfc3339(d.created),
    expiry: toRfc3339(d.expiry),
    last_authenticated: toRfc3339(d.last_authenticated),
  }),
});
