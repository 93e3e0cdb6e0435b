/**
 * The billing account: `/account`, `/account/cancel`, `/account/availability`,
 * `/account/child-accounts`, `/account/credit-card`, `/account/payment-methods`,
 * `/account/invoices`, `/account/logins`, `/account/maintenance`, `/account/notifications`.
 */
import {
  API_FILTERABLE,
  Account,
  AccountCancel,
  AccountCancelResult,
  AccountUpdate,
  ChildAccount,
  CreditCardInput,
  EmptyBody,
  Invoice,
  InvoiceItem,
  Login,
  MaintenanceItem,
  Notification,
  PageQuery,
  paginated,
  PaymentMethod,
  PaymentMethodAdd,
  PersonalAccessToken,
  RegionAvailability,
} from "../../../contract";
import type { ChildAccountService } from "./child-accounts";
import type { BillingService } from "./billing";
import type { AccountDetailsService, AccountView } from "./details";
import type { AccountLoginService } from "./logins";
import type { AccountNoticeService } from "./notices";
import type { PaymentMethodRecord } from "./store";
import { notFound } from "../../domain/errors";
import { parseInput } from "../../http/errors";
import { answer, pageView } from "../../http/present";
import { loginView } from "../sessions/routes";
import { tokenView } from "../tokens/routes";
import { pathId, type Router } from "../../http/router";
import type { FastifyRequest } from "fastify";

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

export const paymentMethodView = (m: PaymentMethodRecord): PaymentMethod => ({
  id: m.id,
  type: m.type,
  is_default: m.is_default,
  created: m.created,
  data: m.data as PaymentMethod["data"],
});

/** A string path parameter (euuid, region slug); an empty one is simply not found. */
function pathText(req: FastifyRequest, name: string): string {
  const value = (req.params as Record<string, unknown>)[name];
  // Control characters (NUL among them) name nothing, and Postgres refuses NUL in text.
  if (typeof value !== "string" || value === "" || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw notFound();
  return value;
}

interface AccountServices {
  accountDetails: AccountDetailsService;
  billing: BillingService;
  notices: AccountNoticeService;
  accountLogins: AccountLoginService;
  childAccounts: ChildAccountService;
}

export function accountRoutes(r: Router, domain: AccountServices): void {
  const { accountDetails, billing, notices, accountLogins, childAccounts } = domain;

  r.get("/account", "account:read_only", async ({ actor }) => answer(Account, accountView(await accountDetails.get(actor))), {
    summary: "View the account",
    response: Account,
  });

  r.put(
    "/account",
    "account:read_write",
    async ({ actor, body }) => {
      const input = body();
      return answer(Account, accountView(await accountDetails.update(actor, input)));
    },
    { summary: "Update the account's contact details", body: AccountUpdate, response: Account },
  );

  r.post(
    "/account/cancel",
    "account:read_write",
    async ({ actor, body }) => {
      const input = body();
      return answer(AccountCancelResult, await accountDetails.cancel(actor, input.comments));
    },
    { summary: "Cancel the account", body: AccountCancel, bodyOptional: true, response: AccountCancelResult },
  );

  r.list("/account/availability", "account:read_only", { item: RegionAvailability, summary: "List region availability" }, async ({ actor }, query) =>
    notices.listAvailability(actor, query),
  );
  r.get(
    "/account/availability/:id",
    "account:read_only",
    async ({ req, actor }) => answer(RegionAvailability, await notices.getAvailability(actor, pathText(req, "id"))),
    { summary: "View a region's availability", response: RegionAvailability },
  );

  r.list(
    "/account/child-accounts",
    "child_account:read_only",
    { item: ChildAccount, filter: API_FILTERABLE["/account/child-accounts"], summary: "List child accounts" },
    async ({ actor }, query) => pageView(await childAccounts.list(actor, query), childAccountView),
  );
  r.get(
    "/account/child-accounts/:euuid",
    "child_account:read_only",
    async ({ req, actor }) => answer(ChildAccount, childAccountView(await childAccounts.get(actor, pathText(req, "euuid")))),
    { summary: "View a child account", response: ChildAccount },
  );
  r.post(
    "/account/child-accounts/:euuid/token",
    "child_account:read_write",
    async ({ req, actor }) => {
      const { record, token } = await childAccounts.createToken(actor, pathText(req, "euuid"));
      return answer(PersonalAccessToken, tokenView(record, token));
    },
    { summary: "Create a proxy user token", response: PersonalAccessToken },
  );

  r.post(
    "/account/credit-card",
    "account:read_write",
    async ({ actor, body }) => {
      await billing.addCreditCard(actor, body());
      return answer(EmptyBody, {});
    },
    { summary: "Add a credit card (deprecated)", body: CreditCardInput, response: EmptyBody },
  );

  r.list("/account/payment-methods", "account:read_only", { item: PaymentMethod, summary: "List payment methods" }, async ({ actor }, query) =>
    pageView(await billing.listPaymentMethods(actor, query), paymentMethodView),
  );
  r.post(
    "/account/payment-methods",
    "account:read_write",
    async ({ actor, body }) => {
      const input = body();
      await billing.addPaymentMethod(actor, input);
      return answer(EmptyBody, {});
    },
    { summary: "Add a payment method", body: PaymentMethodAdd, response: EmptyBody },
  );
  r.get(
    "/account/payment-methods/:paymentMethodId",
    "account:read_only",
    async ({ req, actor }) => answer(PaymentMethod, paymentMethodView(await billing.getPaymentMethod(actor, pathId(req, "paymentMethodId")))),
    { summary: "View a payment method", response: PaymentMethod },
  );
  r.delete(
    "/account/payment-methods/:paymentMethodId",
    "account:read_write",
    async ({ req, actor }) => {
      await billing.deletePaymentMethod(actor, pathId(req, "paymentMethodId"));
      return answer(EmptyBody, {});
    },
    { summary: "Delete a payment method", response: EmptyBody },
  );
  r.post(
    "/account/payment-methods/:paymentMethodId/make-default",
    "account:read_write",
    async ({ req, actor }) => {
      await billing.makeDefault(actor, pathId(req, "paymentMethodId"));
      return answer(EmptyBody, {});
    },
    { summary: "Make a payment method the default", response: EmptyBody },
  );

  r.list(
    "/account/invoices",
    "account:read_only",
    { item: Invoice, filter: API_FILTERABLE["/account/invoices"], summary: "List invoices" },
    async ({ actor }, query) => (await billing.listInvoices(actor, query)) as never,
  );
  r.get(
    "/account/invoices/:invoiceId",
    "account:read_only",
    async ({ req, actor }) => answer(Invoice, (await billing.getInvoice(actor, pathId(req, "invoiceId"))) as Invoice),
    { summary: "View an invoice", response: Invoice },
  );
  r.get(
    "/account/invoices/:invoiceId/items",
    "account:read_only",
    async ({ req, actor }) => {
      const id = pathId(req, "invoiceId");
      const query = parseInput(PageQuery, req.query, "Query");
      return answer(paginated(InvoiceItem), (await billing.listInvoiceItems(actor, id, query)) as never);
    },
    { summary: "List an invoice's items", response: paginated(InvoiceItem) },
  );

  r.list("/account/logins", "account:read_only", { item: Login, summary: "List logins of every user of the account" }, async ({ actor }, query) =>
    pageView(await accountLogins.listLogins(actor, query), loginView),
  );
  r.get(
    "/account/logins/:loginId",
    "account:read_only",
    async ({ req, actor }) => answer(Login, loginView(await accountLogins.getLogin(actor, pathId(req, "loginId")))),
    { summary: "View a login of any user of the account", response: Login },
  );

  r.list(
    "/account/maintenance",
    "token",
    { item: MaintenanceItem, filter: API_FILTERABLE["/account/maintenance"], summary: "List maintenance" },
    async ({ actor }, query) => (await notices.listMaintenance(actor, query)) as never,
  );
  r.list(
    "/account/notifications",
    "account:read_only",
    { item: Notification, summary: "List notifications" },
    async ({ actor }, query) => (await notices.listNotifications(actor, query)) as never,
  );
}
