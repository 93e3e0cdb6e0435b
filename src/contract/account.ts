/**
 * The billing account: contact details, cancellation, child accounts and proxy-user
 * tokens, the deprecated credit card, payment methods, invoices, region availability,
 * maintenance and notifications. Account-wide logins reuse the profile's `Login`.
 */
import { z } from "zod";
import { Timestamp, ruled } from "./common";
import { ACCOUNT_CONTACT_RULES, childAccountEuuid } from "./field-rules";

export const BILLING_SOURCES = ["partner", "compute"] as const;

const contact = (field: keyof typeof ACCOUNT_CONTACT_RULES) => ruled(ACCOUNT_CONTACT_RULES[field], `${field} must be a string`).optional();

export const CreditCardSummary = z.object({
  expiry: z.string().nullable(),
  last_four: z.number().int().nullable(),
});

export const Promotion = z.object({
  credit_monthly_cap: z.string(),
  credit_remaining: z.string(),
  description: z.string(),
  expire_dt: Timestamp,
  image_url: z.string(),
  service_type: z.string(),
  summary: z.string(),
  this_month_credit_remaining: z.string(),
});
export type Promotion = z.infer<typeof Promotion>;

const accountFields = {
  active_since: Timestamp,
  address_1: z.string(),
  address_2: z.string(),
  balance: z.number(),
  balance_uninvoiced: z.number(),
  capabilities: z.array(z.string()),
  city: z.string(),
  company: z.string(),
  country: z.string(),
  credit_card: CreditCardSummary,
  email: z.string(),
  euuid: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  phone: z.string(),
  state: z.string(),
  tax_id: z.string(),
  zip: z.string(),
};

export const Account = z.object({
  ...accountFields,
  active_promotions: z.array(Promotion),
  billing_source: z.enum(BILLING_SOURCES),
});
export type Account = z.infer<typeof Account>;

export const ChildAccount = z.object({ ...accountFields, billing_source: z.literal("external") });
export type ChildAccount = z.infer<typeof ChildAccount>;

/**
 * `PUT /account`: any of the contact fields; omitted fields stay. Rules that depend on the
 * stored account (US zip and US/CA state against the resulting country, a parent's company)
 * are the server's.
 */
export const AccountUpdate = z.object({
  address_1: contact("address_1"),
  address_2: contact("address_2"),
  city: contact("city"),
  company: contact("company"),
  country: ruled(ACCOUNT_CONTACT_RULES.country, "country must be a string")
    .transform((s) => s.toUpperCase())
    .optional(),
  email: contact("email"),
  first_name: contact("first_name"),
  last_name: contact("last_name"),
  phone: contact("phone"),
  state: contact("state"),
  tax_id: contact("tax_id"),
  zip: contact("zip"),
});
export type AccountUpdate = z.input<typeof AccountUpdate>;

export const AccountCancel = z.object({ comments: z.string("comments must be a string").optional() });
export const AccountCancelResult = z.object({ survey_link: z.string() });

export const RegionAvailability = z.object({
  region: z.string(),
  available: z.array(z.string()),
  unavailable: z.array(z.string()),
});
export type RegionAvailability = z.infer<typeof RegionAvailability>;

export const ChildAccountEuuid = ruled(childAccountEuuid);

/** Proxy-user tokens last 15 minutes unless the operator says otherwise. */
export const PROXY_TOKEN_MINUTES = 15;

/** Card fields shared by the deprecated credit card add and the payment method add. */
export const CARD_LIMITS = { number: { min: 14, max: 24 }, cvv: { min: 3, max: 4 } } as const;
const cardFields = {
  card_number: z
    .string("card_number must be a string")
    .regex(/^\d*$/, "card_number must contain only digits (no spaces or hyphens)")
    .min(CARD_LIMITS.number.min, `card_number must be between ${CARD_LIMITS.number.min} and ${CARD_LIMITS.number.max} digits`)
    .max(CARD_LIMITS.number.max, `card_number must be between ${CARD_LIMITS.number.min} and ${CARD_LIMITS.number.max} digits`),
  cvv: z
    .string("cvv must be a string")
    .regex(/^\d*$/, "cvv must contain only digits")
    .min(CARD_LIMITS.cvv.min, `cvv must be ${CARD_LIMITS.cvv.min} or ${CARD_LIMITS.cvv.max} digits`)
    .max(CARD_LIMITS.cvv.max, `cvv must be ${CARD_LIMITS.cvv.min} or ${CARD_LIMITS.cvv.max} digits`),
  expiry_month: z
    .number("expiry_month must be an integer")
    .int("expiry_month must be an integer")
    .min(1, "expiry_month must be between 1 and 12")
    .max(12, "expiry_month must be between 1 and 12"),
  expiry_year: z
    .number("expiry_year must be an integer")
    .int("expiry_year must be an integer")
    .min(1000, "expiry_year must be a four-digit year")
    .max(9999, "expiry_year must be a four-digit year"),
};
export const CreditCardInput = z.object(cardFields);
export type CreditCardInput = z.output<typeof CreditCardInput>;

export const PAYMENT_METHOD_TYPES = ["credit_card", "google_pay", "paypal"] as const;
/** Upstream: at most six active payment methods. */
export const PAYMENT_METHODS_MAX = 6;

export const CardData = z.object({ card_type: z.string(), last_four: z.string(), expiry: z.string() });
export const PayPalData = z.object({ email: z.string(), paypal_id: z.string() });
export const PaymentMethod = z.object({
  id: z.number().int(),
  type: z.enum(PAYMENT_METHOD_TYPES),
  is_default: z.boolean(),
  created: Timestamp,
  data: z.union([CardData, PayPalData]),
});
export type PaymentMethod = z.infer<typeof PaymentMethod>;

/** `POST /account/payment-methods`: only credit cards can be added through the API (upstream). */
export const PaymentMethodAdd = z.object({
  type: z.literal("credit_card", "type must be credit_card"),
  is_default: z.boolean("is_default must be a boolean"),
  data: CreditCardInput,
});
export type PaymentMethodAdd = z.output<typeof PaymentMethodAdd>;

export const TaxSummary = z.object({ name: z.string(), tax: z.number() });
export const Invoice = z.object({
  billing_source: z.enum(BILLING_SOURCES),
  date: Timestamp,
  id: z.number().int(),
  label: z.string(),
  subtotal: z.number(),
  tax: z.number(),
  tax_summary: z.array(TaxSummary),
  total: z.number(),
});
export type Invoice = z.infer<typeof Invoice>;

export const InvoiceItem = z.object({
  amount: z.number(),
  from: Timestamp,
  label: z.string(),
  quantity: z.number().int(),
  region: z.string().nullable(),
  tax: z.number(),
  to: Timestamp,
  total: z.number(),
  type: z.string(),
  unit_price: z.number(),
});
export type InvoiceItem = z.infer<typeof InvoiceItem>;

export const EntityRef = z.object({
  id: z.union([z.number().int(), z.string()]),
  label: z.string(),
  type: z.string(),
  url: z.string(),
});
export type EntityRef = z.infer<typeof EntityRef>;

export const MaintenanceItem = z.object({
  entity: EntityRef,
  reason: z.string(),
  status: z.string(),
  type: z.string(),
  when: Timestamp,
});
export type MaintenanceItem = z.infer<typeof MaintenanceItem>;

export const Notification = z.object({
  body: z.string().nullable(),
  entity: EntityRef.nullable(),
  label: z.string(),
  message: z.string(),
  severity: z.string(),
  type: z.string(),
  until: Timestamp.nullable(),
  when: Timestamp.nullable(),
});
export type Notification = z.infer<typeof Notification>;
