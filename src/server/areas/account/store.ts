/**
 * The account/billing area: tables, records and queries. Account details that nothing queries
 * by (contact fields, balances, capabilities, promotions) live as one JSON body per account;
 * what is queried is a column.
 */
import type { Generated, Selectable } from "kysely";
import { Repository, type Handle } from "../../store/store";

export interface AccountBillingTable {
  account_id: number;
  parent_account_id: number | null;
  /** `AccountDetails` as JSON. */
  body: string;
  canceled: string | null;
  card_declines: number;
}

export interface PaymentMethodsTable {
  id: Generated<number>;
  account_id: number;
  type: string;
  is_default: number;
  created: string;
  /** The method's `data` as JSON. */
  data: string;
  deleted: string | null;
}

/** Invoices, maintenance items and notifications: the answer's body as JSON, plus what is filtered on. */
export interface InvoicesTable {
  id: Generated<number>;
  account_id: number;
  body: string;
}
export interface InvoiceItemsTable {
  id: Generated<number>;
  invoice_id: number;
  body: string;
}
export interface RegionAvailabilityTable {
  account_id: number;
  region: string;
  available: string;
  unavailable: string;
}
export interface MaintenanceTable {
  id: Generated<number>;
  account_id: number;
  body: string;
}
export interface NotificationsTable {
  id: Generated<number>;
  account_id: number;
  body: string;
  resolved: string | null;
}

export interface AccountTables {
  account_billing: AccountBillingTable;
  payment_methods: PaymentMethodsTable;
  invoices: InvoicesTable;
  invoice_items: InvoiceItemsTable;
  region_availability: RegionAvailabilityTable;
  maintenance: MaintenanceTable;
  notifications: NotificationsTable;
}

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

/** An active payment method (deleted ones are never read). */
export type PaymentMethodRecord = Omit<Selectable<PaymentMethodsTable>, "type" | "is_default" | "data" | "deleted"> & {
  type: "credit_card" | "google_pay" | "paypal";
  is_default: boolean;
  /** `{card_type, last_four, expiry}` or `{email, paypal_id}`. */
  data: Record<string, string>;
};
export type NewPaymentMethod = Omit<PaymentMethodRecord, "id">;

/** A stored invoice, item, maintenance item or notification: an id and the JSON body it answers with. */
export interface BodyRecord<T> {
  id: number;
  body: T;
}

export type AvailabilityRecord = Omit<RegionAvailabilityTable, "account_id" | "available" | "unavailable"> & { available: string[]; unavailable: string[] };

const billingRecord = (row: AccountBillingTable): AccountBillingRecord => ({
  account_id: row.account_id,
  parent_account_id: row.parent_account_id,
  details: JSON.parse(row.body) as AccountDetails,
  canceled: row.canceled,
  card_declines: row.card_declines !== 0,
});

const paymentRecord = ({ deleted: _, ...row }: Selectable<PaymentMethodsTable>): PaymentMethodRecord => ({
  ...row,
  type: row.type as PaymentMethodRecord["type"],
  is_default: row.is_default !== 0,
  data: JSON.parse(row.data) as Record<string, string>,
});

const bodyRecord = (row: { id: number; body: string }): BodyRecord<Record<string, unknown>> => ({
  id: row.id,
  body: JSON.parse(row.body) as Record<string, unknown>,
});

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

  async insertPaymentMethod(method: NewPaymentMethod): Promise<PaymentMethodRecord> {
    const row = await this.db
      .insertInto("payment_methods")
      .values({ ...method, is_default: method.is_default ? 1 : 0, data: JSON.stringify(method.data), deleted: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    return paymentRecord(row);
  }

  async listPaymentMethods(accountId: number): Promise<PaymentMethodRecord[]> {
    const rows = await this.db
      .selectFrom("payment_methods")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("deleted", "is", null)
      .orderBy("id")
      .execute();
    return rows.map(paymentRecord);
  }

  async getPaymentMethod(accountId: number, id: number): Promise<PaymentMethodRecord | undefined> {
    const row = await this.db
      .selectFrom("payment_methods")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .where("deleted", "is", null)
      .executeTakeFirst();
    return row && paymentRecord(row);
  }

  async deletePaymentMethod(id: number, at: string): Promise<void> {
    await this.db.updateTable("payment_methods").set({ deleted: at, is_default: 0 }).where("id", "=", id).execute();
  }

  async setDefaultPaymentMethod(accountId: number, id: number): Promise<void> {
    await this.db.updateTable("payment_methods").set({ is_default: 0 }).where("account_id", "=", accountId).execute();
    await this.db.updateTable("payment_methods").set({ is_default: 1 }).where("account_id", "=", accountId).where("id", "=", id).execute();
  }

  async insertInvoice(accountId: number, body: object): Promise<number> {
    const row = await this.db
      .insertInto("invoices")
      .values({ account_id: accountId, body: JSON.stringify(body) })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async listInvoices(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>> {
    const rows = await this.db.selectFrom("invoices").select(["id", "body"]).where("account_id", "=", accountId).orderBy("id").execute();
    return rows.map(bodyRecord);
  }

  async insertInvoiceItem(invoiceId: number, body: object): Promise<number> {
    const row = await this.db
      .insertInto("invoice_items")
      .values({ invoice_id: invoiceId, body: JSON.stringify(body) })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async listInvoiceItems(invoiceId: number): Promise<Array<BodyRecord<Record<string, unknown>>>> {
    const rows = await this.db.selectFrom("invoice_items").select(["id", "body"]).where("invoice_id", "=", invoiceId).orderBy("id").execute();
    return rows.map(bodyRecord);
  }

  async listAvailability(accountId: number): Promise<AvailabilityRecord[] | null> {
    const rows = await this.db.selectFrom("region_availability").selectAll().where("account_id", "=", accountId).orderBy("region").execute();
    if (rows.length === 0) return null;
    return rows.map((r) => ({ region: r.region, available: JSON.parse(r.available) as string[], unavailable: JSON.parse(r.unavailable) as string[] }));
  }

  async replaceAvailability(accountId: number, regions: AvailabilityRecord[]): Promise<void> {
    await this.db.deleteFrom("region_availability").where("account_id", "=", accountId).execute();
    for (const r of regions) {
      await this.db
        .insertInto("region_availability")
        .values({ account_id: accountId, region: r.region, available: JSON.stringify(r.available), unavailable: JSON.stringify(r.unavailable) })
        .execute();
    }
  }

  async insertMaintenance(accountId: number, body: object): Promise<number> {
    const row = await this.db
      .insertInto("maintenance")
      .values({ account_id: accountId, body: JSON.stringify(body) })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async listMaintenance(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>> {
    const rows = await this.db.selectFrom("maintenance").select(["id", "body"]).where("account_id", "=", accountId).orderBy("id").execute();
    return rows.map(bodyRecord);
  }

  async insertNotification(accountId: number, body: object): Promise<number> {
    const row = await this.db
      .insertInto("notifications")
      .values({ account_id: accountId, body: JSON.stringify(body), resolved: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async listNotifications(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>> {
    const rows = await this.db
      .selectFrom("notifications")
      .select(["id", "body"])
      .where("account_id", "=", accountId)
      .where("resolved", "is", null)
      .orderBy("id")
      .execute();
    return rows.map(bodyRecord);
  }

  async resolveNotification(accountId: number, id: number, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable("notifications")
      .set({ resolved: at })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .where("resolved", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

export const accountRepos = (handle: Handle<AccountTables>) => ({ billing: new Billing(handle) });
export type AccountRepos = ReturnType<typeof accountRepos>;
