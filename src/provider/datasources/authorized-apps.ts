/** data mgmt_authorized_apps: OAuth apps the user authorized to act for them. */
import { int, string } from "../framework/attributes";
import { toRfc3339 } from "../timestamps";
import { rfc3339OrNull } from "./common";
import { instantAttribute } from "./filter";
import { defineListDataSource } from "./list";

export const authorizedAppsDataSource = defineListDataSource({
  typeName: "mgmt_authorized_apps",
  description: "OAuth apps the user the provider acts for has authorized, filtered by the API where it can.",
  path: "/profile/apps",
  itemsName: "authorized_apps",
  itemDescription: "The matching apps.",
  item: {
    id: int("computed", "The authorization's id."),
    label: string("computed", "The app's name."),
    scopes: string("computed", "The scopes the app was granted."),
    website: string("computed", "The app's information page."),
    thumbnail_url: string("computed", "Address of the app's thumbnail; null when none."),
    created: instantAttribute("When the app was authorized."),
    expiry: instantAttribute("When the app's access ends", true),
  },
  fetch: (client, o) => client.listAuthorizedApps(o),
  toItem: (a) => ({
    id: a.id,
    label: a.label,
    scopes: a.scopes,
    website: a.website,
    thumbnail_url: a.thumbnail_url,
    created: toRfc3339(a.created),
    expiry: rfc3339OrNull(a.expiry),
  }),
});
