/** Billing: `/account/credit-card`, `/account/payment-methods`, `/account/invoices`. */
import { API_FILTERABLE, CreditCardInput, EmptyBody, Invoice, InvoiceItem, PageQuery, paginated, PaymentMethod, PaymentMethodAdd } from "../../../contract";
import type { BillingService } from "./billing";
import type { PaymentMethodRecord } from "./store";
import { parseInput } from "../../http/errors";
import { answer, pageView } from "../../http/present";
import { pathId, type Router } from "../../http/router";

export const paymentMethodView = (m: PaymentMethodRecord): PaymentMethod => ({
  id: m.id,
  type: m.type,
  is_default: m.is_default,
  created: m.created,
  data: m.data as PaymentMethod["data"],
});

export function billingRoutes(r: Router, billing: BillingService): void {
  r.post(
    "/account/credit-card",
    "account:read_write",
    { summary: "Add a credit card (deprecated)", body: CreditCardInput, response: EmptyBody },
    async ({ actor, body }) => {
      await billing.addCreditCard(actor, body());
      return answer(EmptyBody, {});
    },
  );

  r.list("/account/payment-methods", "account:read_only", { item: PaymentMethod, summary: "List payment methods" }, async ({ actor }, query) =>
    pageView(await billing.listPaymentMethods(actor, query), paymentMethodView),
  );
  r.post(
    "/account/payment-methods",
    "account:read_write",
    { summary: "Add a payment method", body: PaymentMethodAdd, response: EmptyBody },
    async ({ actor, body }) => {
      const input = body();
      await billing.addPaymentMethod(actor, input);
      return answer(EmptyBody, {});
    },
  );
  r.get(
    "/account/payment-methods/:paymentMethodId",
    "account:read_only",
    { summary: "View a payment method", response: PaymentMethod },
    async ({ req, actor }) => answer(PaymentMethod, paymentMethodView(await billing.getPaymentMethod(actor, pathId(req, "paymentMethodId")))),
  );
  r.delete(
    "/account/payment-methods/:paymentMethodId",
    "account:read_write",
    { summary: "Delete a payment method", response: EmptyBody },
    async ({ req, actor }) => {
      await billing.deletePaymentMethod(actor, pathId(req, "paymentMethodId"));
      return answer(EmptyBody, {});
    },
  );
  r.post(
    "/account/payment-methods/:paymentMethodId/make-default",
    "account:read_write",
    { summary: "Make a payment method the default", response: EmptyBody },
    async ({ req, actor }) => {
      await billing.makeDefault(actor, pathId(req, "paymentMethodId"));
      return answer(EmptyBody, {});
    },
  );

  r.list(
    "/account/invoices",
    "account:read_only",
    {
      item: Invoice,
      filter: API_FILTERABLE["/account/invoices"],
      summary: "List invoices",
      filtered: ({ actor }, query, filter) => billing.listInvoicesWhere(actor, query, filter),
    },
    async ({ actor }, query) => billing.listInvoices(actor, query),
  );
  r.get("/account/invoices/:invoiceId", "account:read_only", { summary: "View an invoice", response: Invoice }, async ({ req, actor }) =>
    answer(Invoice, await billing.getInvoice(actor, pathId(req, "invoiceId"))),
  );
  r.get(
    "/account/invoices/:invoiceId/items",
    "account:read_only",
    { summary: "List an invoice's items", response: paginated(InvoiceItem) },
    async ({ req, actor }) => {
      const id = pathId(req, "invoiceId");
      const query = parseInput(PageQuery, req.query, "Query");
      return answer(paginated(InvoiceItem), await billing.listInvoiceItems(actor, id, query));
    },
  );
}
