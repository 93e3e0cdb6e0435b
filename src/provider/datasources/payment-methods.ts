/** data mgmt_payment_methods: the account's payment methods (card or PayPal summaries only). */
import { bool, int, object, string } from "../framework/attributes";
import { toRfc3339 } from "../timestamps";
import { instantAttribute } from "./filter";
import { defineListDataSource } from "./list";

export const paymentMethodsDataSource = defineListDataSource({
  typeName: "mgmt_payment_methods",
  description: "The account's payment methods. The API filters none of their fields: filters apply after paging.",
  path: "/account/payment-methods",
  itemsName: "payment_methods",
  itemDescription: "The matching payment methods.",
  item: {
    id: int("computed", "The payment method's id."),
    type: string("computed", "credit_card, google_pay or paypal."),
    is_default: bool("computed", "Whether charges go to this method."),
    created: instantAttribute("When the method was added."),
    data: object("computed", "What identifies the method; fields of the other kinds are null.", {
      card_type: string("computed", "Card brand (cards and Google Pay)."),
      last_four: string("computed", "Last four digits of the card."),
      expiry: string("computed", "Card expiry as MM/YYYY."),
      email: string("computed", "PayPal account email."),
      paypal_id: string("computed", "PayPal account id."),
    }),
  },
  fetch: (client, o) => client.listPaymentMethods(o),
  toItem: (m) => {
    const d = m.data as Partial<Record<"card_type" | "last_four" | "expiry" | "email" | "paypal_id", string>>;
    return {
      id: m.id,
      type: m.type,
      is_default: m.is_default,
      created: toRfc3339(m.created),
      data: {
        card_type: d.card_type ?? null,
        last_four: d.last_four ?? null,
        expiry: d.expiry ?? null,
        email: d.email ?? null,
        paypal_id: d.paypal_id ?? null,
      },
    };
  },
});
