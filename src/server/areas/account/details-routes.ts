/** The account's details and cancellation: `/account`, `/account/cancel`; the account views the area shares. */
import type { FastifyRequest } from "fastify";
import { Account, AccountCancel, AccountCancelResult, AccountUpdate, ChildAccount } from "../../../contract";
import type { AccountDetailsService, AccountView } from "./details";
import { notFound } from "../../domain/errors";
import { answer } from "../../http/present";
import type { Router } from "../../http/router";

const contact = (v: AccountView) => {
  const d = v.billing.details;
  return {
    active_since: v.account.active_since,
    address_1: d.address_1,
    address_2: d.address_2,
    balance: d.balance,
    balance_uninvoiced: d.balance_uninvoiced,
    capabilities: d.capabilities,
    city: d.city,
    company: d.company,
    country: d.country,
    credit_card: v.card,
    email: d.email,
    euuid: v.account.euuid,
    first_name: d.first_name,
    last_name: d.last_name,
    phone: d.phone,
    state: d.state,
    tax_id: d.tax_id,
    zip: d.zip,
  };
};

export const accountView = (v: AccountView): Account => ({
  ...contact(v),
  active_promotions: v.billing.details.active_promotions as Account["active_promotions"],
  billing_source: v.billing.details.billing_source === "partner" ? "partner" : "compute",
});

export const childAccountView = (v: AccountView): ChildAccount => ({ ...contact(v), billing_source: "external" });

/** A string path parameter (euuid, region slug); an empty one is simply not found. */
export function pathText(req: FastifyRequest, name: string): string {
  const value = (req.params as Record<string, unknown>)[name];
  // Control characters (NUL among them) name nothing, and Postgres refuses NUL in text.
  if (typeof value !== "string" || value === "" || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw notFound();
  return value;
}

export function detailsRoutes(r: Router, accountDetails: AccountDetailsService): void {
  r.get(
    "/account",
    "account:read_only",
    {
      summary: "View the account",
      response: Account,
    },
    async ({ actor }) => answer(Account, accountView(await accountDetails.get(actor))),
  );

  r.put(
    "/account",
    "account:read_write",
    { summary: "Update the account's contact details", body: AccountUpdate, response: Account },
    async ({ actor, body }) => {
      const input = body();
      return answer(Account, accountView(await accountDetails.update(actor, input)));
    },
  );

  r.post(
    "/account/cancel",
    "account:read_write",
    { summary: "Cancel the account", body: AccountCancel, bodyOptional: true, response: AccountCancelResult },
    async ({ actor, body }) => {
      const input = body();
      return answer(AccountCancelResult, await accountDetails.cancel(actor, input.comments));
    },
  );
}
