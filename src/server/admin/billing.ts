/**
 * Admin endpoints of the account/billing area: account seeds and the card-decline switch,
 * payment methods, invoices, availability, maintenance, notifications (and resolving them),
 * child accounts (with their proxy users) and activating or canceling a child account. They
 * act on the bootstrap user's account unless `?account_id=` names another.
 */
import { z } from "zod";
import { RegionAvailability } from "../../contract";
import { pathId } from "../http/router";
import { notFound } from "../domain/errors";
import { resolveWhen } from "../fixtures/when";
import { AccountSeed, ChildAccountSeed, InvoiceSeed, MaintenanceSeed, NotificationSeed, PaymentMethodSeed, applyBilling } from "../fixtures/sections/billing";
import { parseInput } from "../http/errors";
import type { AdminContext, AdminModule } from "./context";
import type { FastifyRequest } from "fastify";

const AccountQuery = z.object({ account_id: z.string().regex(/^\d+$/).transform(Number).optional() });
const Declines = z.object({ declines: z.boolean() }).strict();
const Active = z.object({ active: z.boolean() }).strict();

async function accountOf(req: FastifyRequest, ctx: AdminContext): Promise<number> {
  const { account_id } = parseInput(AccountQuery, req.query, "Query");
  const id = account_id ?? (await ctx.store.users.first())?.account_id;
  if (id === undefined || (await ctx.store.accounts.get(id)) === undefined) throw notFound();
  return id;
}

export const billingAdmin: AdminModule = {
  name: "billing",
  register(r, ctx) {
    const resolve = (when: string) => resolveWhen(ctx.clock, when);

    r.put("/account", "Set account contact, balances, capabilities, promotions or card_declines (no API rules)", async (req) => {
      const accountId = await accountOf(req, ctx);
      await applyBilling.account(ctx.domain, accountId, parseInput(AccountSeed, req.body));
      return { body: await ctx.store.billing.getAccount(accountId) };
    });
    r.put("/account/card", 'Make the card on file decline every charge ({"declines": true}) or succeed again', async (req) => {
      const accountId = await accountOf(req, ctx);
      await ctx.domain.billing.setCardDeclines(accountId, parseInput(Declines, req.body).declines);
      return { body: { account_id: accountId, card_declines: (await ctx.store.billing.getAccount(accountId))!.card_declines } };
    });
    r.post("/payment-methods", "Add a payment method as is (credit_card or paypal)", async (req) => {
      const accountId = await accountOf(req, ctx);
      return { body: await applyBilling.paymentMethod(ctx.domain, accountId, parseInput(PaymentMethodSeed, req.body)) };
    });
    r.post("/invoices", "Add an invoice with its items", async (req) => {
      const accountId = await accountOf(req, ctx);
      return { body: { id: await applyBilling.invoice(ctx.domain, accountId, parseInput(InvoiceSeed, req.body), resolve) } };
    });
    r.put("/availability", "Replace the account's region availability (a list)", async (req) => {
      const accountId = await accountOf(req, ctx);
      await ctx.domain.notices.seedAvailability(accountId, parseInput(z.array(RegionAvailability), req.body));
      return { body: {} };
    });
    r.post("/maintenance", "Add a maintenance item", async (req) => {
      const accountId = await accountOf(req, ctx);
      return { body: { id: await applyBilling.maintenance(ctx.domain, accountId, parseInput(MaintenanceSeed, req.body), resolve) } };
    });
    r.post("/notifications", "Add a notification", async (req) => {
      const accountId = await accountOf(req, ctx);
      return { body: { id: await applyBilling.notification(ctx.domain, accountId, parseInput(NotificationSeed, req.body), resolve) } };
    });
    r.delete("/notifications/:notificationId", "Resolve a notification (it disappears)", async (req) => {
      await ctx.domain.notices.resolveNotification(await accountOf(req, ctx), pathId(req, "notificationId"));
      return { body: {} };
    });
    r.post("/child-accounts", "Create a child account of the account, with its proxy user", async (req) => {
      const parentId = await accountOf(req, ctx);
      const { account, proxyUser } = await applyBilling.child(ctx.domain, parentId, parseInput(ChildAccountSeed, req.body));
      return {
        body: {
          account_id: account.id,
          euuid: account.euuid,
          proxy_user: { id: proxyUser.id, username: proxyUser.username, restricted: proxyUser.restricted },
        },
      };
    });
    r.put("/child-accounts/:accountId/active", 'Activate or cancel a child account ({"active": false})', async (req) => {
      await ctx.domain.childAccounts.setChildActive(pathId(req, "accountId"), parseInput(Active, req.body).active);
      return { body: {} };
    });
  },
};
