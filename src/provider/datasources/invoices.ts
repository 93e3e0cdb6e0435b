/** data mgmt_invoices: the account's invoices, optionally with their items. */
import { listAll } from "../../client/paginate";
import { bool } from "../framework/attributes";
import { invoiceAttributes, invoiceItemsAttribute, invoiceItemValue, invoiceValue } from "./invoice-shape";
import { defineListDataSource } from "./list";

export const invoicesDataSource = defineListDataSource({
  typeName: "mgmt_invoices",
  description: "The account's invoices, filtered by the API where it can.",
  path: "/account/invoices",
  itemsName: "invoices",
  itemDescription: "The matching invoices.",
  item: { ...invoiceAttributes, items: invoiceItemsAttribute("The invoice's items when include_items is true; null otherwise (one request per invoice).") },
  arguments: {
    include_items: bool("optional", "Also read each listed invoice's items (one more request per invoice). Default false."),
  },
  fetch: (client, o) => client.listInvoices(o),
  toItem: (i) => ({ ...invoiceValue(i), items: null }),
  async complete({ ctx, signal }, config, invoices) {
    if (config.include_items !== true) return invoices;
    const out = [];
    for (const invoice of invoices) {
      const items = await listAll(ctx.client.listInvoiceItems(Number(invoice.id), { signal }));
      out.push({ ...invoice, items: items.map(invoiceItemValue) });
    }
    return out;
  },
});
