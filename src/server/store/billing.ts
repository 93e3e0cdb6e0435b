/**
 * The account/billing area as the domain sees it: records and their operations, no SQL.
 * Account details that nothing queries by (contact fields, balances, capabilities,
 * promotions) live as one JSON body per account; what is queried is a column.
 */
import type { AccountRecord, LoginRecord, Slice } from "./store";

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

export interface PaymentMethodRecord {
  id: number;
  account_id: number;
  type: "credit_card" | "google_pay" | "paypal";
  is_default: boolean;
  created: string;
  /** `{card_type, last_four, expiry}` or `{email, paypal_id}`. */
  data: Record<string, string>;
}
export type NewPaymentMethod = Omit<PaymentMethodRecord, "id">;

/** A stored invoice, item, maintenance item or notification: an id and the JSON body it answers with. */
export interface BodyRecord<T> {
  id: number;
  body: T;
}

export interface AvailabilityRecord {
  region: string;
  available: string[];
  unavailable: string[];
}

export interface BillingRepo {
  getAccount(accountId: number): Promise<AccountBillingRecord | undefined>;
  /** Inserts or replaces the account's billing row. */
  putAccount(record: AccountBillingRecord): Promise<void>;
  countChildren(parentId: number): Promise<number>;
  listChildren(parentId: number, slice: Slice): Promise<AccountBillingRecord[]>;

  insertPaymentMethod(method: NewPaymentMethod): Promise<PaymentMethodRecord>;
  /** Active (not deleted) payment methods of the account, by id. */
  listPaymentMethods(accountId: number): Promise<PaymentMethodRecord[]>;
  getPaymentMethod(accountId: number, id: number): Promise<PaymentMethodRecord | undefined>;
  deletePaymentMethod(id: number, at: string): Promise<void>;
  /** Makes `id` the one default of the account. */
  setDefaultPaymentMethod(accountId: number, id: number): Promise<void>;

  insertInvoice(accountId: number, body: object): Promise<number>;
  listInvoices(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>>;
  insertInvoiceItem(invoiceId: number, body: object): Promise<number>;
  listInvoiceItems(invoiceId: number): Promise<Array<BodyRecord<Record<string, unknown>>>>;

  /** Null: none stored for the account (the built-in catalogue applies). */
  listAvailability(accountId: number): Promise<AvailabilityRecord[] | null>;
  replaceAvailability(accountId: number, regions: AvailabilityRecord[]): Promise<void>;

  insertMaintenance(accountId: number, body: object): Promise<number>;
  listMaintenance(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>>;
  insertNotification(accountId: number, body: object): Promise<number>;
  /** Notifications not yet resolved. */
  listNotifications(accountId: number): Promise<Array<BodyRecord<Record<string, unknown>>>>;
  resolveNotification(accountId: number, id: number, at: string): Promise<boolean>;

  /** Revokes every token of every user of the account. */
  revokeAccountTokens(accountId: number, at: string): Promise<void>;
  /** Logins (any status) of every user of the account at or after `since`, by id. */
  listAccountLogins(accountId: number, since: string): Promise<LoginRecord[]>;
  accountByEuuid(euuid: string): Promise<AccountRecord | undefined>;
  /** The id of the account's proxy user (the lowest id), if it has one. */
  proxyUserId(accountId: number): Promise<number | undefined>;
}
