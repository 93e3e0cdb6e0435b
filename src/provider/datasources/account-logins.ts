/** data mgmt_account_logins: logins of every user of the account (last 90 days). */
import { defineListDataSource } from "./list";
import { loginAttributes, loginValue } from "./login-shape";

export const accountLoginsDataSource = defineListDataSource({
  typeName: "mgmt_account_logins",
  description:
    "Logins of every user of the account over the last 90 days (unrestricted users only). The API filters none of their fields: filters apply after paging.",
  path: "/account/logins",
  itemsName: "logins",
  itemDescription: "The matching logins.",
  item: loginAttributes,
  fetch: (client, o) => client.listAccountLogins(o),
  toItem: loginValue,
});
