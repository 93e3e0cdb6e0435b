/** Invoices and their items as `mgmt_invoice` and `mgmt_invoices` show them. */
import type { Invoice, InvoiceItem } from "../../contract/account";
import { int, list, number, object, string } from "../framework/attributes";
import type { Attributes, StateOf } from "../framework/value-types";
import { toRfc3339 } from "../timestamps";
import { instantAttribute } from "./filter";

export const invoiceItemAttributes = {
  label: string("computed", "What was billed."),
  type: string("computed", "Kind of charge, e.g. hourly."),
  amount: number("computed", "Amount before tax, USD."),
  tax: number("computed", "Tax, USD."),
  total: number("computed", "Amount after tax, USD."),
  quantity: int("computed", "Units billed."),
  unit_price: number("computed", "Price of one unit, USD."),
  region: string("computed", "Region of the billed service; null when none."),
  from: instantAttribute("Start of the billed period."),
  to: instantAttribute("End of the billed period."),
} satisfies Attributes;

export const invoiceAttributes = {
  id: int("computed", "The invoice's id."),
  label: string("computed", "The invoice's label."),
  date: instantAttribute("When the invoice was issued."),
  billing_source: string("computed", "partner or compute."),
  subtotal: number("computed", "Total before tax, USD."),
  tax: number("computed", "Tax, USD."),
  total: number("computed", "Total after tax, USD."),
  tax_summary: list(
    "computed",
    "Tax by kind.",
    object("computed", "One tax.", {
      name: string("computed", "The tax's name."),
      tax: number("computed", "Amount of this tax, USD."),
    }),
  ),
} satisfies Attributes;

export const invoiceItemsAttribute = (description: string) => list("computed", description, object("computed", "One invoice item.", invoiceItemAttributes));

export const invoiceValue = (i: Invoice): StateOf<typeof invoiceAttributes> => ({
  id: i.id,
  label: i.label,
  date: toRfc3339(i.date),
  billing_source: i.billing_source,
  subtotal: i.subtotal,
  tax: i.tax,
  total: i.total,
  tax_summary: i.tax_summary.map((t) => ({ name: t.name, tax: t.tax })),
});

export const invoiceItemValue = (i: InvoiceItem): StateOf<typeof invoiceItemAttributes> => ({
  label: i.label,
  type: i.type,
  amount: i.amount,
  tax: i.tax,
  total: i.total,
  quantity: i.quantity,
  unit_price: i.unit_price,
  region: i.region,
  from: toRfc3339(i.from),
  to: toRfc3339(i.to),
});
