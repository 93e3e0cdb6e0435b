/**
 * The billing account: contact details (`GET/PUT /account`), cancellation, the deprecated
 * credit card, payment methods, invoices, region availability, account-wide logins,
 * maintenance and notifications. Who may do what is decided here (`AccountAccess`), with
 * the rules of the seed: grants for restricted users, unrestricted-only operations, and what
 * a child-account user may not do. Data the API reads but cannot create comes in through
 * the `seed*` functions (fixtures, the admin namespace, tests).
 */
import { createHash } from "node:crypto";
import {
  CA_PROVINCE_CODES,
  LOGIN_HISTORY_DAYS,
  PAYMENT_METHODS_MAX,
  US_STATE_CODES,
  US_ZIP_PATTERN,
  type EventAction,
  type AccountUpdate,
  type CreditCardInput,
  type Page,
  type PageQuery,
  type PaymentMethodAdd,
} from "../../../contract";
import type { z } from "zod";
import type { StoreOf } from "../../store/store";
import type { EventRepos } from "../events/store";
import type { ProfileRepos, AccountRecord, UserRecord } from "../profile/store";
import type { LoginRecord, SessionRepos } from "../sessions/store";
import type { TokenRepos } from "../tokens/store";
import type { AccountBillingRecord, AccountDetails, AccountRepos, AvailabilityRecord, PaymentMethodRecord } from "./store";
import { DAY, timestamp, timestampAt, type Actor, type Deps } from "../../domain/context";
import { DomainError, forbidden, invalid, notFound } from "../../domain/errors";
import { pageFrom } from "../../domain/paging";
import { grantsOf, requireAccountAccess, requireUnrestricted } from "../profile/grants";
import { entities, recordEvent } from "../events/service";
import type { EventEntity } from "../events/store";

export type AccountUpdateInput = z.output<typeof AccountUpdate>;
export type PaymentMethodInput = PaymentMethodAdd;

/** The grant-denied answer (upstream's text). */

export const DEFAULT_CAPABILITIES = [
  "Block Storage",
  "Cloud Firewall",
  "Computes",
  "Kubernetes",
  "Managed Databases",
  "NodeBalancers",
  "Object Storage",
  "VPCs",
] as const;

/** Region availability when none was seeded for the account: every service everywhere. */
export const DEFAULT_REGIONS = [
  "ap-northeast",
  "ap-south",
  "ap-southeast",
  "ap-west",
  "ca-central",
  "eu-central",
  "eu-west",
  "us-central",
  "us-east",
  "us-southeast",
  "us-west",
];
export const DEFAULT_SERVICES = ["Block Storage", "Computes", "Kubernetes", "Managed Databases", "NodeBalancers"];

export const SURVEY_LINK_BASE = "https://www.example.com/survey/cancel?euuid=";

export function defaultDetails(email = ""): AccountDetails {
  return {
    first_name: "",
    last_name: "",
    email,
    company: "",
    address_1: "",
    address_2: "",
    city: "",
    state: "",
    zip: "",
    country: "",
    phone: "",
    tax_id: "",
    balance: 0,
    balance_uninvoiced: 0,
    capabilities: [...DEFAULT_CAPABILITIES],
    active_promotions: [],
    billing_source: "compute",
  };
}

/** The card network from the number's prefix (display only). */
export function cardType(number: string): string {
  if (/^4/.test(number)) return "Visa";
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return "MasterCard";
  if (/^3[47]/.test(number)) return "American Express";
  if (/^(6011|65|64[4-9])/.test(number)) return "Discover";
  return "Unknown";
}

/** The proxy user's name: `<company[0..15]>_<sha256(company + euuid)[0..16]>`. */
export function proxyUsername(parentCompany: string, childEuuid: string): string {
  const hash = createHash("sha256")
    .update(parentCompany + childEuuid, "utf8")
    .digest("hex");
  return `${parentCompany.slice(0, 15)}_${hash.slice(0, 16)}`;
}

/** What the account view shows of the default card on file. */
interface CardSummary {
  expiry: string | null;
  last_four: number | null;
}

function cardSummary(methods: PaymentMethodRecord[]): CardSummary {
  const card = methods.find((m) => m.is_default && m.type === "credit_card");
  return card === undefined ? { expiry: null, last_four: null } : { expiry: card.data.expiry ?? null, last_four: Number(card.data.last_four) };
}

/** What the account area reads and writes: its own tables, accounts and users, their tokens and logins, the feed. */
export type AccountAreaRepos = AccountRepos & ProfileRepos & TokenRepos & SessionRepos & EventRepos;
type Store = StoreOf<AccountAreaRepos>;

export interface AccountView {
  account: AccountRecord;
  billing: AccountBillingRecord;
  card: CardSummary;
}

export class BillingService {
  constructor(private readonly deps: Deps<AccountAreaRepos>) {}

  /** The one way this area adds to the event feed (the events service's `recordEvent`). */
  private async emit(actor: Actor, action: EventAction, accountId: number, store: Store, entity?: EventEntity): Promise<void> {
    const account = await store.accounts.get(accountId);
    const billing = await store.billing.getAccount(accountId);
    const label = billing?.details.company || billing?.details.email || (account?.euuid ?? "");
    await recordEvent(this.deps, { actor, action, entity: entity ?? entities.account(account?.euuid ?? "", label) }, store);
  }

  /** The account's billing row; an account never written to gets the defaults on first use. */
  async billing(accountId: number, store: Store = this.deps.store): Promise<AccountBillingRecord> {
    const found = await store.billing.getAccount(accountId);
    if (found !== undefined) return found;
    const first = await store.users.first();
    const record: AccountBillingRecord = {
      account_id: accountId,
      parent_account_id: null,
      details: defaultDetails(first?.account_id === accountId ? first.email : ""),
      canceled: null,
      card_declines: false,
    };
    await store.billing.putAccount(record);
    return record;
  }

  async viewOf(accountId: number, store: Store = this.deps.store): Promise<AccountView> {
    const account = await store.accounts.get(accountId);
    if (account === undefined) throw notFound();
    const billing = await this.billing(accountId, store);
    const card = cardSummary(await store.billing.listPaymentMethods(accountId));
    return { account, billing, card };
  }

  /** Whether the user belongs to a child account (proxy users included). */
  async isChildAccountUser(user: UserRecord, store: Store = this.deps.store): Promise<boolean> {
    return (await store.billing.getAccount(user.account_id))?.parent_account_id != null;
  }

  // --- GET/PUT /account -------------------------------------------------------------------

  async get(actor: Actor): Promise<AccountView> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    return this.deps.store.transaction((tx) => this.viewOf(actor.user.account_id, tx));
  }

  /**
   * Partial update. Rules: a child-account user cannot update (403); a parent's `company`
   * cannot change (403 naming `company`; the current value is accepted); with the resulting
   * country US the zip must be a US zip, and with US or CA the state a two-letter code.
   */
  async update(actor: Actor, input: AccountUpdateInput): Promise<AccountView> {
    await requireAccountAccess(this.deps.store, actor, "read_write");
    return this.deps.store.transaction(async (tx) => {
      if (await this.isChildAccountUser(actor.user, tx)) throw forbidden(null, "A child account user cannot update the account");
      const billing = await this.billing(actor.user.account_id, tx);
      const before = billing.details;
      if (input.company !== undefined && input.company !== before.company && (await tx.billing.children(billing.account_id)).length > 0) {
        throw forbidden("company", "The company of a parent account cannot be changed");
      }
      const after: AccountDetails = { ...before };
      for (const [key, value] of Object.entries(input) as Array<[keyof AccountUpdateInput, string | undefined]>) {
        if (value !== undefined) (after as unknown as Record<string, string>)[key] = value;
      }
      const items = [];
      if (after.country === "US" && (input.country !== undefined || input.zip !== undefined) && !US_ZIP_PATTERN.test(after.zip)) {
        items.push({ field: "zip", reason: "zip must be a valid US zip code (12345 or 12345-6789)" });
      }
      if (after.country === "US" || after.country === "CA") {
        if (input.country !== undefined || input.state !== undefined) {
          const upper = after.state.toUpperCase();
          const codes: readonly string[] = after.country === "US" ? US_STATE_CODES : CA_PROVINCE_CODES;
          if (codes.includes(upper)) after.state = upper;
          else {
            items.push({
              field: "state",
              reason:
                after.country === "US"
                  ? "state must be a two-letter US state code (AA, AE or AP for military addresses)"
                  : "state must be a two-letter Canadian province code",
            });
          }
        }
      }
      if (items.length > 0) throw new DomainError("invalid", items);
      await tx.billing.putAccount({ ...billing, details: after });
      await this.emit(actor, "account_update", billing.account_id, tx);
      return this.viewOf(billing.account_id, tx);
    });
  }

  // --- POST /account/cancel ---------------------------------------------------------------

  /**
   * Unrestricted users only; not a child-account user; not a parent with an active child.
   * The remaining balance (balance plus uninvoiced) is charged to the default card; a failed
   * charge is 409 and the account stays active. Then the account is canceled and every token
   * of its users revoked.
   */
  async cancel(actor: Actor, _comments: string | undefined): Promise<{ survey_link: string }> {
    await requireUnrestricted(this.deps.store, actor);
    return this.deps.store.transaction(async (tx) => {
      if (await this.isChildAccountUser(actor.user, tx)) throw forbidden(null, "A child account user cannot cancel a child account");
      const { account, billing } = await this.viewOf(actor.user.account_id, tx);
      const children = await tx.billing.children(account.id);
      if (children.some((c) => c.canceled === null)) {
        throw new DomainError("conflict", [{ reason: "A parent account with an active child account cannot be canceled" }]);
      }
      const due = Math.round((billing.details.balance + billing.details.balance_uninvoiced) * 100) / 100;
      if (due > 0) {
        const card = (await tx.billing.listPaymentMethods(account.id)).find((m) => m.is_default);
        if (card === undefined || billing.card_declines) {
          throw new DomainError("conflict", [
            {
              reason: `We were unable to charge your credit card for the remaining balance of $${due.toFixed(2)}. You cannot cancel this account until the balance has been paid.`,
            },
          ]);
        }
        await this.emit(actor, "payment_submitted", account.id, tx);
      }
      const now = timestamp(this.deps.clock);
      await tx.billing.putAccount({ ...billing, canceled: now, details: { ...billing.details, balance: 0, balance_uninvoiced: 0 } });
      await tx.tokens.revokeOfAccount(account.id, now);
      return { survey_link: SURVEY_LINK_BASE + account.euuid };
    });
  }

  // --- payment methods and the deprecated credit card -------------------------------------

  async listPaymentMethods(actor: Actor, query: PageQuery): Promise<Page<PaymentMethodRecord>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    return pageFrom(query, await this.deps.store.billing.listPaymentMethods(actor.user.account_id));
  }

  async getPaymentMethod(actor: Actor, id: number): Promise<PaymentMethodRecord> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const method = await this.deps.store.billing.getPaymentMethod(actor.user.account_id, id);
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
      await this.billing(accountId, tx);
      const active = await tx.billing.listPaymentMethods(accountId);
      if (active.length >= PAYMENT_METHODS_MAX) {
        throw invalid(null, `An account can have at most ${PAYMENT_METHODS_MAX} payment methods; delete one first`);
      }
      const method = await tx.billing.insertPaymentMethod({
        account_id: accountId,
        type: "credit_card",
        is_default: false,
        created: timestamp(this.deps.clock),
        data: {
          card_type: cardType(card.card_number),
          last_four: card.card_number.slice(-4),
          expiry: `${String(card.expiry_month).padStart(2, "0")}/${card.expiry_year}`,
        },
      });
      if (makeDefault || active.length === 0) await tx.billing.setDefaultPaymentMethod(accountId, method.id);
      const label = `${method.data.card_type} ending in ${method.data.last_four}`;
      await this.emit(actor, action, accountId, tx, { id: method.id, label, type: "payment_method", url: `/v4/account/payment-methods/${method.id}` });
      return (await tx.billing.getPaymentMethod(accountId, method.id))!;
    });
  }

  /** The default method cannot be deleted. */
  async deletePaymentMethod(actor: Actor, id: number): Promise<void> {
    await requireAccountAccess(this.deps.store, actor, "read_write");
    await this.deps.store.transaction(async (tx) => {
      const method = await tx.billing.getPaymentMethod(actor.user.account_id, id);
      if (method === undefined) throw notFound();
      if (method.is_default) throw invalid(null, "The default payment method cannot be deleted; make another one the default first");
      await tx.billing.deletePaymentMethod(id, timestamp(this.deps.clock));
    });
  }

  async makeDefault(actor: Actor, id: number): Promise<void> {
    await requireAccountAccess(this.deps.store, actor, "read_write");
    await this.deps.store.transaction(async (tx) => {
      const method = await tx.billing.getPaymentMethod(actor.user.account_id, id);
      if (method === undefined) throw notFound();
      await tx.billing.setDefaultPaymentMethod(actor.user.account_id, id);
    });
  }

  // --- invoices ---------------------------------------------------------------------------

  async listInvoices(actor: Actor, query: PageQuery): Promise<Page<Record<string, unknown>>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const rows = await this.deps.store.billing.listInvoices(actor.user.account_id);
    return pageFrom(
      query,
      rows.map((r) => ({ ...r.body, id: r.id })),
    );
  }

  async getInvoice(actor: Actor, id: number): Promise<Record<string, unknown>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const row = (await this.deps.store.billing.listInvoices(actor.user.account_id)).find((r) => r.id === id);
    if (row === undefined) throw notFound();
    return { ...row.body, id: row.id };
  }

  async listInvoiceItems(actor: Actor, invoiceId: number, query: PageQuery): Promise<Page<Record<string, unknown>>> {
    await this.getInvoice(actor, invoiceId);
    const rows = await this.deps.store.billing.listInvoiceItems(invoiceId);
    return pageFrom(
      query,
      rows.map((r) => r.body),
    );
  }

  // --- availability -----------------------------------------------------------------------

  private async availability(accountId: number): Promise<AvailabilityRecord[]> {
    const stored = await this.deps.store.billing.listAvailability(accountId);
    return stored ?? DEFAULT_REGIONS.map((region) => ({ region, available: [...DEFAULT_SERVICES], unavailable: [] }));
  }

  async listAvailability(actor: Actor, query: PageQuery): Promise<Page<AvailabilityRecord>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    return pageFrom(query, await this.availability(actor.user.account_id));
  }

  async getAvailability(actor: Actor, region: string): Promise<AvailabilityRecord> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const found = (await this.availability(actor.user.account_id)).find((r) => r.region === region);
    if (found === undefined) throw notFound();
    return found;
  }

  // --- account logins ---------------------------------------------------------------------

  private async accountLogins(actor: Actor): Promise<LoginRecord[]> {
    await requireUnrestricted(this.deps.store, actor);
    return this.deps.store.logins.ofAccount(actor.user.account_id, timestampAt(this.deps.clock, -LOGIN_HISTORY_DAYS * DAY));
  }

  async listLogins(actor: Actor, query: PageQuery): Promise<Page<LoginRecord>> {
    return pageFrom(query, await this.accountLogins(actor));
  }

  async getLogin(actor: Actor, id: number): Promise<LoginRecord> {
    const login = (await this.accountLogins(actor)).find((l) => l.id === id);
    if (login === undefined) throw notFound();
    return login;
  }

  // --- maintenance and notifications ------------------------------------------------------

  /** Not canceled, and only entities the user may view (compute grants for a restricted user). */
  async listMaintenance(actor: Actor, query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const grants = await grantsOf(this.deps.store, actor);
    const visible = grants === null ? null : new Set(grants.compute.filter((g) => g.permissions !== null).map((g) => String(g.id)));
    const rows = await this.deps.store.billing.listMaintenance(actor.user.account_id);
    const items = rows
      .map((r) => r.body)
      .filter((b) => b.status !== "canceled")
      .filter((b) => visible === null || visible.has(String((b.entity as { id: unknown }).id)));
    return pageFrom(query, items);
  }

  /** Unresolved notifications whose `until` has not passed. */
  async listNotifications(actor: Actor, query: PageQuery): Promise<Page<Record<string, unknown>>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const now = timestamp(this.deps.clock);
    const rows = await this.deps.store.billing.listNotifications(actor.user.account_id);
    return pageFrom(
      query,
      rows.map((r) => r.body).filter((b) => b.until == null || (b.until as string) > now),
    );
  }

  // --- seeds: data the API reads but cannot create -----------------------------------------

  /** Sets contact and money fields of an account (no API rules applied; fixtures and admin). */
  async seedAccount(accountId: number, details: Partial<AccountDetails>): Promise<AccountBillingRecord> {
    return this.deps.store.transaction(async (tx) => {
      const billing = await this.billing(accountId, tx);
      const record = { ...billing, details: { ...billing.details, ...details } };
      await tx.billing.putAccount(record);
      return record;
    });
  }

  /** Adds a payment method as is (any type, no limits); `is_default` makes it the one default. */
  async seedPaymentMethod(
    accountId: number,
    method: Pick<PaymentMethodRecord, "type" | "data" | "is_default"> & { created?: string },
  ): Promise<PaymentMethodRecord> {
    return this.deps.store.transaction(async (tx) => {
      await this.billing(accountId, tx);
      const first = (await tx.billing.listPaymentMethods(accountId)).length === 0;
      const record = await tx.billing.insertPaymentMethod({
        account_id: accountId,
        type: method.type,
        data: method.data,
        is_default: false,
        created: method.created ?? timestamp(this.deps.clock),
      });
      if (method.is_default || first) await tx.billing.setDefaultPaymentMethod(accountId, record.id);
      return (await tx.billing.getPaymentMethod(accountId, record.id))!;
    });
  }

  /** Makes every charge to the account's card decline (or succeed again). */
  async setCardDeclines(accountId: number, declines: boolean): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const billing = await this.billing(accountId, tx);
      await tx.billing.putAccount({ ...billing, card_declines: declines });
    });
  }

  async seedInvoice(accountId: number, invoice: Record<string, unknown>, items: Array<Record<string, unknown>> = []): Promise<number> {
    return this.deps.store.transaction(async (tx) => {
      const { id: _ignored, ...body } = invoice;
      const id = await tx.billing.insertInvoice(accountId, body);
      for (const item of items) await tx.billing.insertInvoiceItem(id, item);
      return id;
    });
  }

  async seedAvailability(accountId: number, regions: AvailabilityRecord[]): Promise<void> {
    await this.deps.store.transaction((tx) => tx.billing.replaceAvailability(accountId, regions));
  }

  async seedMaintenance(accountId: number, item: Record<string, unknown>): Promise<number> {
    return this.deps.store.billing.insertMaintenance(accountId, item);
  }

  async seedNotification(accountId: number, notification: Record<string, unknown>): Promise<number> {
    return this.deps.store.billing.insertNotification(accountId, notification);
  }

  /** A notification's cause is resolved: it disappears. */
  async resolveNotification(accountId: number, id: number): Promise<void> {
    if (!(await this.deps.store.billing.resolveNotification(accountId, id, timestamp(this.deps.clock)))) throw notFound();
  }
}
