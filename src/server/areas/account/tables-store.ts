/**
 * The account area's tables, in one place because one handle serves them all: the account's own row (`./store.ts`),
 * payment methods and invoices (`./billing-store.ts`), availability, maintenance and notifications
 * (`./notices-store.ts`). Each repository is built over `AccountTables`, so no handle needs recasting to a part.
 */
import type { Generated } from "kysely";

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

/** Invoices and their items: the answer's body as JSON, plus what is filtered on. */
export interface InvoicesTable {
  id: Generated<number>;
  account_id: number;
  body: string;
  /** The body's X-Filter fields (null only on a body without them). */
  billing_source: string | null;
  date: string | null;
  label: string | null;
  total: number | null;
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

/** Maintenance: the body, its X-Filter fields (`when` as `when_at`) and its entity's id as text (for grants). */
export interface MaintenanceTable {
  id: Generated<number>;
  account_id: number;
  body: string;
  status: string | null;
  type: string | null;
  when_at: string | null;
  entity_id: string | null;
}

/** Notifications: the body and its `until` (shown while it has not passed). */
export interface NotificationsTable {
  id: Generated<number>;
  account_id: number;
  body: string;
  resolved: string | null;
  until: string | null;
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
