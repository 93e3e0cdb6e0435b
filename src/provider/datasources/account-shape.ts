/** The account's fields, shared by `mgmt_account` and the child account data sources. */
import type { Account, ChildAccount } from "../../contract/account";
import { int, list, number, object, string } from "../framework/attributes";
import type { Attributes, StateOf } from "../framework/value-types";
import type { ObjectValue } from "../framework/value";
import { toRfc3339 } from "../timestamps";
import { instantAttribute } from "./filter";

export const contactAttributes = {
  euuid: string("computed", "External unique account identifier."),
  active_since: instantAttribute("When the account was activated."),
  company: string("computed", "Company name."),
  first_name: string("computed", "First name of the account's contact."),
  last_name: string("computed", "Last name of the account's contact."),
  email: string("computed", "Contact email address."),
  phone: string("computed", "Contact phone number."),
  address_1: string("computed", "Billing address, first line."),
  address_2: string("computed", "Billing address, second line."),
  city: string("computed", "Billing city."),
  state: string("computed", "Billing state or province."),
  zip: string("computed", "Billing zip or postal code."),
  country: string("computed", "Two-letter ISO 3166 country code."),
  tax_id: string("computed", "Tax id; empty where the country collects no tax."),
  balance: number("computed", "Balance, USD."),
  balance_uninvoiced: number("computed", "Estimate of the current invoice so far, USD."),
  capabilities: list("computed", "Capabilities the account supports.", "string"),
  credit_card: object("computed", "The card on file.", {
    expiry: string("computed", "Expiry as MM/YYYY; null when no card is on file."),
    last_four: int("computed", "Last four digits; null when no card is on file."),
  }),
  billing_source: string("computed", "Who bills the account: partner or compute (external for a child account)."),
} satisfies Attributes;

export const promotionsAttribute = list(
  "computed",
  "Promotions applied to the account.",
  object("computed", "One promotion.", {
    summary: string("computed", "Short description."),
    description: string("computed", "Full description."),
    service_type: string("computed", "The service the promotion applies to."),
    credit_monthly_cap: string("computed", "Most credit per month, USD."),
    credit_remaining: string("computed", "Credit left, USD."),
    this_month_credit_remaining: string("computed", "Credit left this month, USD."),
    expire_dt: instantAttribute("When the promotion ends."),
    image_url: string("computed", "Image of the promotion."),
  }),
);

export const contactValue = (a: Account | ChildAccount): StateOf<typeof contactAttributes> => ({
  euuid: a.euuid,
  active_since: toRfc3339(a.active_since),
  company: a.company,
  first_name: a.first_name,
  last_name: a.last_name,
  email: a.email,
  phone: a.phone,
  address_1: a.address_1,
  address_2: a.address_2,
  city: a.city,
  state: a.state,
  zip: a.zip,
  country: a.country,
  tax_id: a.tax_id,
  balance: a.balance,
  balance_uninvoiced: a.balance_uninvoiced,
  capabilities: [...a.capabilities],
  credit_card: { expiry: a.credit_card.expiry, last_four: a.credit_card.last_four },
  billing_source: a.billing_source,
});

export const promotionsValue = (a: Account): ObjectValue[] =>
  a.active_promotions.map((p) => ({
    summary: p.summary,
    description: p.description,
    service_type: p.service_type,
    credit_monthly_cap: p.credit_monthly_cap,
    credit_remaining: p.credit_remaining,
    this_month_credit_remaining: p.this_month_credit_remaining,
    expire_dt: toRfc3339(p.expire_dt),
    image_url: p.image_url,
  }));
