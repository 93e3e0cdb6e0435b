/**
 * Payment methods and invoices of an account: records and queries (the tables are in
 * `./tables-store.ts`). A method's `data` and an invoice's body are JSON text; what is queried
 * is a column.
 */
import { sql, type RawBuilder, type Selectable, type SelectQueryBuilder } from "kysely";
import { filterSql, flavorOf, type Filter, type FilterColumns, type FilterSql } from "../../store/filter-sql";
import { Repository, countN, counted, totalOver, type Counted, type Handle, type Slice } from "../../store/store";
import type { AccountTables, PaymentMethodsTable } from "./tables-store";

/** An invoice's X-Filter fields (the contract's table) as its columns, and `id`, which `+order` alone orders by. */
const INVOICE_COLUMNS: FilterColumns = {
  id: { kind: "number", value: sql.ref("invoices.id") },
  billing_source: { kind: "text", value: sql.ref("invoices.billing_source") },
  date: { kind: "timestamp", value: sql.ref("invoices.date") },
  label: { kind: "text", value: sql.ref("invoices.label") },
  total: { kind: "number", value: sql.ref("invoices.total") },
};

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

const bodyRecord = (row: { id: number; body: string }): BodyRecord<Record<string, unknown>> => ({
  id: row.id,
  body: JSON.parse(row.body) as Record<string, unknown>,
});

/** The tables of JSON-bodied rows an account pages through. */
type BodyTable = "invoices" | "maintenance" | "notifications";

/**
 * One slice of the bodied rows `rows` selects, in `orderBy`, with their count: the page is the query's, and
 * every list of them (invoices, maintenance, notifications) reads it the same way.
 */
export function countedBodies<TB extends BodyTable>(
  rows: SelectQueryBuilder<AccountTables, TB, object>,
  slice: Slice,
  orderBy: RawBuilder<unknown>,
): Promise<Counted<BodyRecord<Record<string, unknown>>>> {
  return counted(
    slice,
    () => rows.select(["id", "body"]).select(totalOver()).orderBy(orderBy).limit(slice.limit).offset(slice.offset).execute(),
    () => rows.select(countN).executeTakeFirst(),
    ({ total: _, ...row }) => bodyRecord(row),
  );
}

const paymentRecord = ({ deleted: _, ...row }: Selectable<PaymentMethodsTable>): PaymentMethodRecord => ({
  ...row,
  type: row.type as PaymentMethodRecord["type"],
  is_default: row.is_default !== 0,
  data: JSON.parse(row.data) as Record<string, string>,
});

export class Payments extends Repository<AccountTables> {
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

  async insertInvoice(accountId: number, body: { billing_source: string; date: string; label: string; total: number }): Promise<number> {
    const { billing_source, date, label, total } = body;
    const row = await this.db
      .insertInto("invoices")
      .values({ account_id: accountId, body: JSON.stringify(body), billing_source, date, label, total })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** `filter` as SQL for `pageInvoices`, in id order among equals; undefined when it has none exact. */
  invoiceFilter(filter: Filter): FilterSql | undefined {
    return filterSql(filter, INVOICE_COLUMNS, sql`${sql.ref("invoices.id")}`, flavorOf(this.db));
  }

  /**
   * One slice of the account's invoices by id (or `filter`'s, from `invoiceFilter`: those it keeps, in its order),
   * with their count: the page is the query's (index `invoices_account_id_id`).
   */
  pageInvoices(accountId: number, slice: Slice, filter?: FilterSql): Promise<Counted<BodyRecord<Record<string, unknown>>>> {
    const account = this.db.selectFrom("invoices").where("account_id", "=", accountId);
    return countedBodies(filter === undefined ? account : account.where(filter.where), slice, filter?.orderBy ?? sql`${sql.ref("invoices.id")}`);
  }

  async getInvoice(accountId: number, id: number): Promise<BodyRecord<Record<string, unknown>> | undefined> {
    const row = await this.db.selectFrom("invoices").select(["id", "body"]).where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return row && bodyRecord(row);
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
}

export const billingRepos = (handle: Handle<AccountTables>) => ({ payments: new Payments(handle) });
