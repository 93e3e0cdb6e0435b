/** data mgmt_child_accounts: the parent account's child accounts. */
import { contactAttributes, contactValue } from "./account-shape";
import { defineListDataSource } from "./list";

export const childAccountsDataSource = defineListDataSource({
  typeName: "mgmt_child_accounts",
  description: "The child accounts of this (parent) account, filtered by the API where it can.",
  path: "/account/child-accounts",
  itemsName: "child_accounts",
  itemDescription: "The matching child accounts.",
  item: contactAttributes,
  fetch: (client, o) => client.listChildAccounts(o),
  toItem: contactValue,
});
