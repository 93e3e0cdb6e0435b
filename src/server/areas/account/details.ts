/**
 * The account's own details (`GET/PUT /account`) and its cancellation. Who may do what is
 * decided with the rules of the seed: grants for restricted users, unrestricted-only
 * operations, and what a child-account user may not do. The other sub-areas of the account
 * build on this service: its row (`billing`), its view (`viewOf`) and its events (`emit`).
 */
import { AccountUpdate, addressProblems, type EventAction } from "../../../contract";
import type { z } from "zod";
import type { StoreOf } from "../../store/store";
import type { EventRepos } from "../events/store";
import type { ProfileRepos, AccountRecord } from "../profile/store";
import type { SessionRepos } from "../sessions/store";
import type { TokenRepos } from "../tokens/store";
import type { AccountBillingRecord, AccountDetails, AccountRepos, PaymentMethodRecord } from "./store";
import { wireNow, type Actor, type Deps } from "../../domain/context";
import { DomainError, forbidden, notFound } from "../../domain/errors";
import { requireAccountAccess, requireUnrestricted } from "../../auth/grants";
import { entities } from "../../domain/event-entities";
import { recordEvent } from "../events";
import type { EventEntity } from "../../domain/records";
import type { UserRecord } from "../../domain/records";

export type AccountUpdateInput = z.output<typeof AccountUpdate>;
/** The contact fields `PUT /account` may set. */
const UPDATABLE = AccountUpdate.keyof().options;

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

export class AccountDetailsService {
  constructor(private readonly deps: Deps<AccountAreaRepos>) {}

  /** The one way this area adds to the event feed (the events service's `recordEvent`). */
  async emit(actor: Actor, action: EventAction, accountId: number, store: Store, entity?: EventEntity): Promise<void> {
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
    const card = cardSummary(await store.payments.listPaymentMethods(accountId));
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
      for (const key of UPDATABLE) {
        const value = input[key];
        if (value !== undefined) after[key] = value;
      }
      const stateChecked = input.country !== undefined || input.state !== undefined;
      const items = addressProblems({
        country: after.country,
        ...(input.country !== undefined || input.zip !== undefined ? { zip: after.zip } : {}),
        ...(stateChecked ? { state: after.state } : {}),
      });
      // A state code the rule accepted is kept as the API writes it: upper case.
      if (items.length === 0 && stateChecked && (after.country === "US" || after.country === "CA")) after.state = after.state.toUpperCase();
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
        const card = (await tx.payments.listPaymentMethods(account.id)).find((m) => m.is_default);
        if (card === undefined || billing.card_declines) {
          throw new DomainError("conflict", [
            {
              reason: `We were unable to charge your credit card for the remaining balance of $${due.toFixed(2)}. You cannot cancel this account until the balance has been paid.`,
            },
          ]);
        }
        await this.emit(actor, "payment_submitted", account.id, tx);
      }
      const now = wireNow(this.deps.clock);
      await tx.billing.putAccount({ ...billing, canceled: now, details: { ...billing.details, balance: 0, balance_uninvoiced: 0 } });
      await tx.tokens.revokeOfUsers(await tx.users.idsOf(account.id), now);
      return { survey_link: SURVEY_LINK_BASE + account.euuid };
    });
  }

  /** Sets contact and money fields of an account (no API rules applied; fixtures and admin). */
  async seedAccount(accountId: number, details: Partial<AccountDetails>): Promise<AccountBillingRecord> {
    return this.deps.store.transaction(async (tx) => {
      const billing = await this.billing(accountId, tx);
      const record = { ...billing, details: { ...billing.details, ...details } };
      await tx.billing.putAccount(record);
      return record;
    });
  }
}
