/** data mgmt_account: the billing account's contact and billing details. */
import type { ProviderContext } from "../config";
import { string } from "../framework/attributes";
import { defineDataSource } from "../framework/resource";
import { contactAttributes, contactValue, promotionsAttribute, promotionsValue } from "./account-shape";

export const accountDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_account",
  description: "The billing account: contact details, balances, card on file, capabilities and promotions.",
  attributes: {
    id: string("computed", "The account's euuid."),
    ...contactAttributes,
    active_promotions: promotionsAttribute,
  },
  async read({ ctx, signal }) {
    const a = await ctx.client.getAccount({ signal });
    return { id: a.euuid, ...contactValue(a), active_promotions: promotionsValue(a) };
  },
});
