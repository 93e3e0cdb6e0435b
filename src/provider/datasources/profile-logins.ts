/** data mgmt_profile_logins: the acting user's own logins (last 90 days). */
import { defineListDataSource } from "./list";
import { loginAttributes, loginValue } from "./login-shape";

export const profileLoginsDataSource = defineListDataSource({
  typeName: "mgmt_profile_logins",
  description: "Successful logins of the user the provider acts for, over the last 90 days. The API filters none of their fields: filters apply after paging.",
  path: "/profile/logins",
  itemsName: "logins",
  itemDescription: "The matching logins.",
  item: loginAttributes,
  fetch: (client, o) => client.listProfileLogins(o),
  toItem: loginValue,
});
