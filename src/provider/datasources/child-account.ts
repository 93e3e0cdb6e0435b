/** data mgmt_child_account: one child account by euuid. */
import { childAccountEuuid, type ProviderContext } from "../config";
import { string } from "../framework/attributes";
import { defineDataSource } from "../framework/resource";
import { contactAttributes, contactValue } from "./account-shape";

export const childAccountDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_child_account",
  description: "One child account of this (parent) account, by euuid.",
  attributes: {
    id: string("computed", "The child account's euuid."),
    ...contactAttributes,
    euuid: childAccountEuuid,
  },
  async read({ ctx, signal }, config) {
    const c = await ctx.client.getChildAccount(config.euuid, { signal });
    return { id: c.euuid, ...contactValue(c), euuid: c.euuid };
  },
});
