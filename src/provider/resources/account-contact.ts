/**
 * mgmt_account_contact: the account's contact details (`GET/PUT /account`), a singleton. Only
 * the attributes the configuration sets are managed; the others show the live values and never
 * make a diff.
 */
import type { Account, AccountUpdate } from "../../contract";
import { ACCOUNT_CONTACT_FIELDS, CA_PROVINCE_CODES, US_STATE_CODES, type AccountContactField } from "../../contract/enums";
import { ACCOUNT_CONTACT_RULES, US_ZIP_PATTERN } from "../../contract/field-rules";
import type { ProviderContext } from "../config";
import { string, type AttributeSpec } from "../framework/attributes";
import { attr, error, type Diagnostic } from "../framework/diagnostics";
import { defineResource } from "../framework/resource";
import { knownString, type ObjectValue } from "../framework/value";
import type { StateOf } from "../framework/value-types";
import { singletonCrud } from "./singleton";

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

function field(name: AccountContactField): AttributeSpec {
  const upperCase = name === "country" || name === "state";
  return string("optional_computed", `${DESCRIPTIONS[name]} Managed only when set.`, {
    keepPrior: true,
    validate: ACCOUNT_CONTACT_RULES[name],
    ...(upperCase ? { semanticEquals: caseInsensitive } : {}),
  });
}

const attributes = {
  id: string("computed", "The account's euuid.", { keepPrior: true }),
  ...Object.fromEntries(ACCOUNT_CONTACT_FIELDS.map((name) => [name, field(name)])),
};

const toState = (a: Account): StateOf<typeof attributes> => ({ id: a.euuid, ...Object.fromEntries(ACCOUNT_CONTACT_FIELDS.map((f) => [f, a[f]])) });

/** The contract's address rules, when the configuration says the country (otherwise the API decides at apply). */
export function addressProblems(config: ObjectValue): Diagnostic[] {
  const country = knownString(config, "country")?.toUpperCase();
  const zip = knownString(config, "zip");
  const state = knownString(config, "state")?.toUpperCase();
  const out: Diagnostic[] = [];
  if (country === "US" && zip !== undefined && !US_ZIP_PATTERN.test(zip)) {
    out.push(error("Invalid zip", `zip: with country US it must be a US zip code (12345 or 12345-6789); got "${zip}"`, attr("zip")));
  }
  const codes: readonly string[] | undefined = country === "US" ? US_STATE_CODES : country === "CA" ? CA_PROVINCE_CODES : undefined;
  if (codes !== undefined && state !== undefined && !codes.includes(state)) {
    out.push(
      error(
        "Invalid state",
        `state: with country ${country} it must be a two-letter ${country === "US" ? "US state" : "Canadian province"} code; got "${state}"`,
        attr("state"),
      ),
    );
  }
  return out;
}

export const accountContactResource = defineResource<ProviderContext>()({
  typeName: "mgmt_account_contact",
  description:
    "The account's contact and billing address details. The account always exists: creating this resource adopts it, destroying it only removes it from state. Only the attributes set in the configuration are managed; the others show the live values.",
  importId: { description: "any text; `account` by convention (there is one account)", example: "account" },
  attributes,

  validate: addressProblems,

  ...singletonCrud("mgmt_account_contact", attributes, {
    what: "account",
    read: async (ctx) => toState(await ctx.client.getAccount()),
    write: async (ctx, body) => toState(await ctx.client.updateAccount(body as AccountUpdate)),
  }),
});
