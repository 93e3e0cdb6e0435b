/**
 * Payment methods, the deprecated credit card and invoices of an account. A card's charges
 * can be made to decline (`setCardDeclines`), which cancellation observes. Payment methods
 * and invoices the API reads but cannot create come in through the `seed*` functions
 * (fixtures, the admin namespace, tests).
 */
import {
  PAYMENT_METHODS_MAX,
  type EventAction,
  type CreditCardInput,
  type Invoice,
  type InvoiceItem,
  type Page,
  type PageQuery,
  type PaymentMethodAdd,
} from "../../../contract";
import type { Filter } from "../../../contract/x-filter";
import type { PaymentMethodRecord } from "./store";
import { invoiceItemView, invoiceView, type InvoiceBody } from "./stored-views";
import { wireNow, type Actor, type Deps } from "../../domain/context";
import { invalid, notFound } from "../../domain/errors";
import { pageFrom, pageOf } from "../../domain/paging";
import { requireAccountAccess } from "../../auth/grants";
import type { AccountAreaRepos, AccountDetailsService } from "./details";

export type PaymentMethodInput = PaymentMethodAdd;

/** The card network from the number's prefix (display only). */
export function cardType(number: string): string {
  if (/^4/.test(number)) return "Visa";
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return "MasterCard";
  if (/^3[47]/.test(number)) return "American Express";
  if (/^(6011|65|64[4-9])/.test(number)) return "Discover";
  return "Unknown";
}

export class BillingService {
  constructor(
    private readonly deps: Deps<AccountAreaRepos>,
    private readonly details: AccountDetailsService,
  ) {}

  // --- payment methods and the deprecated credit card -------------------------------------

  async listPaymentMethods(actor: Actor, query: PageQuery): Promise<Page<PaymentMethodRecord>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    return pageFrom(query, await this.deps.store.payments.listPaymentMethods(actor.user.account_id));
  }

  async getPaymentMethod(actor: Actor, id: number): Promise<PaymentMethodRecord> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const method = await this.deps.store.payments.getPaymentMethod(actor.user.account_id, id);
    if (method === undefined) throw notFound();
    return method;
  }

  /** Adds a card; the first one, or one asked to be, becomes the default. At most six. */
  async addPaymentMethod(actor: Actor, input: PaymentMethodInput): Promise<PaymentMethodRecord> {
    await requireAccountAccess(this.deps.store, actor, "read_write");
    return this.addCard(actor, input.data, input.is_default, "data.", "payment_method_add");
  }

  /** `POST /account/credit-card` (deprecated): adds a card and makes it the default. */
  async addCreditCard(actor: Actor, input: CreditCardInput): Promise<void> {
    await requireAccountAccess(this.deps.store, actor, "read_write");
    await this.addCard(actor, input, true, "", "credit_card_updated");
  }

  private async addCard(actor: Actor, card: CreditCardInput, makeDefault: boolean, prefix: string, action: EventAction): Promise<PaymentMethodRecord> {
    const accountId = actor.user.account_id;
    const now = this.deps.clock.now();
    const year = now.getUTCFullYear();
    const month = now.getUTCMonth() + 1;
    if (card.expiry_year < year || (card.expiry_year === year && card.expiry_month < month)) {
      throw invalid(`${prefix}expiry_year`, "The card has expired");
    }
    return this.deps.store.transaction(async (tx) => {
      await this.details.billing(accountId, tx);
      const active = await tx.payments.listPaymentMethods(accountId);
      if (active.length >= PAYMENT_METHODS_MAX) {
        throw invalid(null, `An account can have at most ${PAYMENT_METHODS_MAX} payment methods; delete one first`);
      }
      const method = await tx.payments.insertPaymentMethod({
        account_id: accountId,
        type: "credit_card",
        is_default: false,
        created: wireNow(this.deps.clock),
        data: {
          card_type: cardType(card.card_number),
          last_four: card.card_number.slice(-4),
          expiry: `${String(card.expiry_month).padStart(2, "0")}/${card.expiry_year}`,
        },
      });
      if (makeDefault || active.length === 0) await tx.payments.setDefaultPaymentMethod(accountId, method.id);
      const label = `${method.data.card_type} ending in ${method.data.last_four}`;
      await this.details.emit(actor, action, accountId, tx, { id: method.id, label, type: "payment_method", url: `/v4/account/payment-methods/${method.id}` });
      return (await tx.payments.getPaymentMethod(accountId, method.id))!;
    });
  }

  /** The default method cannot be deleted. */
  async deletePaymentMethod(actor: Actor, id: number): Promise<void> {
    await requireAccountAccess(this.deps.store, actor, "read_write");
    await this.deps.store.transaction(async (tx) => {
      const method = await tx.payments.getPaymentMethod(actor.user.account_id, id);
      if (method === undefined) throw notFound();
      if (method.is_default) throw invalid(null, "The default payment method cannot be deleted; make another one the default first");
      await tx.payments.deletePaymentMethod(id, wireNow(this.deps.clock));
    });
  }

  async makeDefault(actor: Actor, id: number): Promise<void> {
    await requireAccountAccess(this.deps.store, actor, "read_write");
    await this.deps.store.transaction(async (tx) => {
      const method = await tx.payments.getPaymentMethod(actor.user.account_id, id);
      if (method === undefined) throw notFound();
      await tx.payments.setDefaultPaymentMethod(actor.user.account_id, id);
    });
  }

  // --- invoices ---------------------------------------------------------------------------

  async listInvoices(actor: Actor, query: PageQuery): Promise<Page<Invoice>> {
    return (await this.listInvoicesWhere(actor, query, null))!;
  }

  /** `listInvoices` with X-Filter applied by the store too; undefined when `filter` has no exact SQL. */
  async listInvoicesWhere(actor: Actor, query: PageQuery, filter: Filter | null): Promise<Page<Invoice> | undefined> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const payments = this.deps.store.payments;
    const where = filter === null ? undefined : payments.invoiceFilter(filter);
    if (filter !== null && where === undefined) return undefined;
    const page = await pageOf(query, (slice) => payments.pageInvoices(actor.user.account_id, slice, where));
    return { ...page, data: page.data.map(invoiceView) };
  }

  async getInvoice(actor: Actor, id: number): Promise<Invoice> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const row = await this.deps.store.payments.getInvoice(actor.user.account_id, id);
    if (row === undefined) throw notFound();
    return invoiceView(row);
  }

  async listInvoiceItems(actor: Actor, invoiceId: number, query: PageQuery): Promise<Page<InvoiceItem>> {
    await this.getInvoice(actor, invoiceId);
    const rows = await this.deps.store.payments.listInvoiceItems(invoiceId);
    return pageFrom(query, rows.map(invoiceItemView));
  }

  /** Adds a payment method as is (any type, no limits); `is_default` makes it the one default. */
  async seedPaymentMethod(
    accountId: number,
    method: Pick<PaymentMethodRecord, "type" | "data" | "is_default"> & { created?: string },
  ): Promise<PaymentMethodRecord> {
    return this.deps.store.transaction(async (tx) => {
      await this.details.billing(accountId, tx);
      const first = (await tx.payments.listPaymentMethods(accountId)).length === 0;
      const record = await tx.payments.insertPaymentMethod({
        account_id: accountId,
        type: method.type,
        data: method.data,
        is_default: false,
        created: method.created ?? wireNow(this.deps.clock),
      });
      if (method.is_default || first) await tx.payments.setDefaultPaymentMethod(accountId, record.id);
      return (await tx.payments.getPaymentMethod(accountId, record.id))!;
    });
  }

  /** Makes every charge to the account's card decline (or succeed again). */
  async setCardDeclines(accountId: number, declines: boolean): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const billing = await this.details.billing(accountId, tx);
      await tx.billing.putAccount({ ...billing, card_declines: declines });
    });
  }

  /** Stores an invoice as the API answers it (an `id` given is ignored: the row's is the invoice's). */
  async seedInvoice(accountId: number, invoice: InvoiceBody & { id?: number }, items: readonly InvoiceItem[] = []): Promise<number> {
    return this.deps.store.transaction(async (tx) => {
      const { id: _ignored, ...body } = invoice;
      const id = await tx.payments.insertInvoice(accountId, body);
      for (const item of items) await tx.payments.insertInvoiceItem(id, item);
      return id;
    });
  }
}
