/**
 * The Kysely repository of the account/billing area (tables of migration
 * `0003_account_billing`). Its tables are declared here, not in `tables.ts`: the repository
 * sees the shared database through `BillingDatabase`, the shared tables plus its own.
 */
import type { Generated, Kysely } from "kysely";
import type { Database } from "./tables";
import type { AccountBillingRecord, AccountDetails, AvailabilityRecord, BillingRepo, BodyRecord, NewPaymentMethod, PaymentMethodRecord } from "./billing";
import type { AccountRecord, LoginRecord, LoginStatus, Slice } from "./store";

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

export interface BillingDatabase extends Database {
  account_billing: AccountBillingTable;
  payment_methods: PaymentMethodsTable;
  invoices: InvoicesTable;
  invoice_items: InvoiceItemsTable;
  region_availability: RegionAvailabilityTable;
  maintenance: MaintenanceTable;
  notifications: NotificationsTable;
}

const toCount = (value: string | number | bigint | undefined): number => Number(value ?? 0);

const billingRecord = (row: AccountBillingTable): AccountBillingRecord => ({
  account_id: row.account_id,
  parent_account_id: row.parent_account_id,
  details: JSON.parse(row.body) as AccountDetails,
  canceled: row.canceled,
  card_declines: row.card_declines !== 0,
});

const paymentRecord = (row: Omit<PaymentMethodsTable, "id"> & { id: number }): PaymentMethodRecord => ({
  id: row.id,
  account_id: row.account_id,
  type: row.type as PaymentMethodRecord["type"],
  is_default: row.is_default !== 0,
  created: row.created,
  data: JSON.parse(row.data) as Record<string, string>,
});

const bodyRecord = (row: { id: number; body: string }): BodyRecord<Record<string, unknown>> => ({
  id: row.id,
  body: JSON.parse(row.body) as Record<string, unknown>,
});

export class KyselyBillingRepo implements BillingRepo {
  private readonly db: Kysely<BillingDatabase>;

  constructor(db: Kysely<Database>) {
    this.db = db as unknown as Kysely<BillingDatabase>;
  }

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

  async countChildren(parentId: number): Promise<number> {
    const row = await this.db
      .selectFrom("account_billing")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("parent_account_id", "=", parentId)
      .executeTakeFirst();
    return toCount(row?.n);
  }

  async listChildren(parentId: number, slice: Slice): Promise<AccountBillingRecord[]> {
    const rows = await this.db
      .selectFrom("account_billing")
      .selectAll()
      .where("parent_account_id", "=", parentId)
      .orderBy("account_id")
      .limit(slice.limit)
      .offset(slice.offset)
      .execute();
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
    const row = await this.db.insertInto("invoices").values({ account_id: accountId, body: JSON.stringify(body) }).returning("id").executeTakeFirstOrThrow();
    return row.id;
  }

  async listInvoices(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>> {
    const rows = await this.db.selectFrom("invoices").select(["id", "body"]).where("account_id", "=", accountId).orderBy("id").execute();
    return rows.map(bodyRecord);
  }

  async insertInvoiceItem(invoiceId: number, body: object): Promise<number> {
    const row = await this.db.insertInto("invoice_items").values({ invoice_id: invoiceId, body: JSON.stringify(body) }).returning("id").executeTakeFirstOrThrow();
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
    const row = await this.db.insertInto("maintenance").values({ account_id: accountId, body: JSON.stringify(body) }).returning("id").executeTakeFirstOrThrow();
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

  async revokeAccountTokens(accountId: number, at: string): Promise<void> {
    await this.db
      .updateTable("tokens")
      .set({ revoked: at })
      .where("revoked", "is", null)
      .where("user_id", "in", (eb) => eb.selectFrom("users").select("id").where("account_id", "=", accountId))
      .execute();
  }

  async listAccountLogins(accountId: number, since: string): Promise<LoginRecord[]> {
    const rows = await this.db
      .selectFrom("logins as l")
      .innerJoin("users as u", "u.id", "l.user_id")
      .selectAll("l")
      .where("u.account_id", "=", accountId)
      .where("l.datetime", ">=", since)
      .orderBy("l.id")
      .execute();
    return rows.map((r) => ({ ...r, restricted: r.restricted !== 0, status: r.status as LoginStatus }));
  }

  accountByEuuid(euuid: string): Promise<AccountRecord | undefined> {
    return this.db.selectFrom("accounts").selectAll().where("euuid", "=", euuid).executeTakeFirst();
  }

  async proxyUserId(accountId: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom("users")
      .select("id")
      .where("account_id", "=", accountId)
      .where("user_type", "=", "proxy")
      .orderBy("id")
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }
}
