/**
 * The account area's store: the account's own row (contact details, money, parent, cancel)
 * here, payment methods and invoices in `billing-store.ts`, availability, maintenance and
 * notifications in `notices-store.ts`. Account details that nothing queries by (contact
 * fields, balances, capabilities, promotions) live as one JSON body per account; what is
 * queried is a column. The tables of all three are in `tables-store.ts`.
 */
import { Repository, type Handle } from "../../store/store";
import { billingRepos } from "./billing-store";
import { noticeRepos } from "./notices-store";
import type { AccountBillingTable, AccountTables } from "./tables-store";

export type { BodyRecord, PaymentMethodRecord } from "./billing-store";
export type { AvailabilityRecord } from "./notices-store";

/** The account's contact details, money and capabilities (the `Account` shape, minus ids). */
export interface AccountDetails {
  first_name: string;
  last_name: string;
  email: string;
  company: string;
  address_1: string;
  address_2: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  phone: string;
  tax_id: string;
  balance: number;
  balance_uninvoiced: number;
  capabilities: string[];
  active_promotions: Array<Record<string, string>>;
  billing_source: "partner" | "compute" | "external";
}

export interface AccountBillingRecord {
  account_id: number;
  /** The parent account of a child account; null otherwise. */
  parent_account_id: number | null;
  details: AccountDetails;
  /** When the account was canceled; null while active. */
  canceled: string | null;
  /** The simulated card on file declines every charge. */
  card_declines: boolean;
}

const billingRecord = (row: AccountBillingTable): AccountBillingRecord => ({
  account_id: row.account_id,
  parent_account_id: row.parent_account_id,
  details: JSON.parse(row.body) as AccountDetails,
  canceled: row.canceled,
  card_declines: row.card_declines !== 0,
});

/** The account's own row: details, parent, cancellation, card declines. */
export class Billing extends Repository<AccountTables> {
  async getAccount(accountId: number): Promise<AccountBillingRecord | undefined> {
    const row = await this.db.selectFrom("account_billing").selectAll().where("account_id", "=", accountId).executeTakeFirst();
    return row && billingRecord(row);
  }

  async putAccount(record: AccountBillingRecord): Promise<void> {
    await this.db.deleteFrom("account_billing").where("account_id", "=", record.account_id).execute();
    await this.db
      .insertInto("account_billing")
      .values({
        account_id: record.account_id,
        parent_account_id: record.parent_account_id,
        body: JSON.stringify(record.details),
        canceled: record.canceled,
        card_declines: record.card_declines ? 1 : 0,
      })
      .execute();
  }

  /** Every child account of `parentId` (canceled ones too), by id. */
  async children(parentId: number): Promise<AccountBillingRecord[]> {
    const rows = await this.db.selectFrom("account_billing").selectAll().where("parent_account_id", "=", parentId).orderBy("account_id").execute();
    return rows.map(billingRecord);
  }
}

export const accountRepos = (handle: Handle<AccountTables>) => ({
  billing: new Billing(handle),
  ...billingRepos(handle),
  ...noticeRepos(handle),
});
export type AccountRepos = ReturnType<typeof accountRepos>;
