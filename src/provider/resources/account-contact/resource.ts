/**
 * mgmt_account_contact: the account's contact details (`GET/PUT /account`), a singleton. Only
 * the attributes the configuration sets are managed; the others show the live values and never
 * make a diff.
 */
import type { Account, AccountUpdate } from "../../../contract";
import { ACCOUNT_CONTACT_FIELDS, type AccountContactField } from "../../../contract/enums";
import { ACCOUNT_CONTACT_RULES, addressProblems } from "../../../contract/field-rules";
import type { ProviderContext } from "../../config";
import { string, type Declared } from "../../framework/attributes";
import { attr, error, type Diagnostic } from "../../framework/diagnostics";
import { defineResource } from "../../framework/resource";
import { known } from "../../framework/value";
import type { ConfigOf, StateOf } from "../../framework/value-types";
import { singletonCrud } from "../singleton";

const DESCRIPTIONS: Record<AccountContactField, string> = {
  address_1: "First line of the address.",
  address_2: "Second line of the address.",
  city: "City.",
  company: "Company name. The company of a parent account (one with child accounts) cannot change: the API refuses at apply.",
  country: "Two-letter ISO 3166 country code (compared case-insensitively).",
  email: "Where invoices and account notices are sent.",
  first_name: "First name of the account holder.",
  last_name: "Last name of the account holder.",
  phone: "Phone number.",
  state: "State or province; with country US or CA a two-letter code (compared case-insensitively).",
  tax_id: "Tax identification number.",
  zip: "Postal code; with country US a US zip (12345 or 12345-6789).",
};

const caseInsensitive = (a: string, b: string) => a.toUpperCase() === b.toUpperCase();

function field(name: AccountContactField): Declared<string, "optional_computed"> {
  const upperCase = name === "country" || name === "state";
  return string("optional_computed", `${DESCRIPTIONS[name]} Managed only when set.`, {
    keepPrior: true,
    validate: ACCOUNT_CONTACT_RULES[name],
    ...(upperCase ? { semanticEquals: caseInsensitive } : {}),
  });
}

/** One value per contact field, typed field by field (which Object.fromEntries cannot say: hence its one cast). */
function perField<T>(value: (name: AccountContactField) => T): { readonly [F in AccountContactField]: T } {
  return Object.fromEntries(ACCOUNT_CONTACT_FIELDS.map((name) => [name, value(name)])) as { readonly [F in AccountContactField]: T };
}

const attributes = {
  id: string("computed", "The account's euuid.", { keepPrior: true }),
  ...perField(field),
};

const toState = (a: Account): StateOf<typeof attributes> => ({ id: a.euuid, ...perField((name) => a[name]) });

/** The contract's address rule, when the configuration says the country (otherwise the API decides at apply). */
export function addressDiagnostics(config: ConfigOf<typeof attributes>): Diagnostic[] {
  const [country, zip, state] = [known(config.country), known(config.zip), known(config.state)];
  return addressProblems({ country, zip, state }).map((p) =>
    error(`Invalid ${p.field}`, `${p.reason}; got "${p.field === "zip" ? zip : state}"`, attr(p.field)),
  );
}

export const accountContactResource = defineResource<ProviderContext>()({
  typeName: "mgmt_account_contact",
  description:
    "The account's contact and billing address details. The account always exists: creating this resource adopts it, destroying it only removes it from state. Only the attributes set in the configuration are managed; the others show the live values.",
  importId: { description: "any text; `account` by convention (there is one account)", example: "account" },
  attributes,

  validate: addressDiagnostics,

  ...singletonCrud("mgmt_account_contact", attributes, {
    what: "account",
    read: async (ctx) => toState(await ctx.client.getAccount()),
    write: async (ctx, body) => toState(await ctx.client.updateAccount(body as AccountUpdate)),
  }),
});
