/** data mgmt_invoice: one invoice by id, with its items. */
import { listAll } from "../../client/paginate";
import type { ProviderContext } from "../config";
import { int } from "../framework/attributes";
import { defineDataSource } from "../framework/resource";
import { positiveIdReason } from "./common";
import { invoiceAttributes, invoiceItemsAttribute, invoiceItemValue, invoiceValue } from "./invoice-shape";

export const invoiceDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_invoice",
  description: "One invoice of the account, by id, with its items.",
  attributes: {
    ...invoiceAttributes,
    id: int("required", "The invoice's id.", { validate: positiveIdReason }),
    items: invoiceItemsAttribute("The invoice's items."),
  },
  async read({ ctx, signal }, config) {
    const id = config.id;
    const invoice = await ctx.client.getInvoice(id, { signal });
    const items = await listAll(ctx.client.listInvoiceItems(id, { signal }));
    return { ...invoiceValue(invoice), id: invoice.id, items: items.map(invoiceItemValue) };
  },
});
