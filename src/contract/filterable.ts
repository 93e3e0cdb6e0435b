/**
 * The fields each list operation accepts in X-Filter, and their types (upstream's filterable
 * sets): the server's list routes filter by this table and publish it in the OpenAPI document
 * (`x-filterable-fields`); the provider's list data sources send conditions on these fields.
 *
 * An event's `entity.id` is listed as a number, which is what the provider sends; the server
 * writes string ids as well (a tag's label, an OAuth client's id, a euuid, a transfer token)
 * and its event list takes a number or a string there (`src/server/areas/events/routes.ts`).
 */
export type ApiFieldType = "string" | "number" | "boolean" | "timestamp";

export const API_FILTERABLE = {
  "/account/events": { id: "number", action: "string", created: "timestamp", read: "boolean", "entity.id": "number", "entity.type": "string" },
  "/account/invoices": { billing_source: "string", date: "timestamp", label: "string", total: "number" },
  "/account/maintenance": { status: "string", type: "string", when: "timestamp" },
  "/account/oauth-clients": { label: "string", public: "boolean" },
  "/account/entity-transfers": { status: "string", is_sender: "boolean" },
  "/account/child-accounts": {
    address_1: "string",
    address_2: "string",
    city: "string",
    company: "string",
    country: "string",
    email: "string",
    first_name: "string",
    last_name: "string",
    phone: "string",
    state: "string",
    zip: "string",
  },
  "/profile/apps": { label: "string", created: "timestamp", expiry: "timestamp" },
  "/profile/sshkeys": { label: "string" },
  "/profile/tokens": { label: "string", created: "timestamp" },
  "/tags": { label: "string" },
} as const satisfies Readonly<Record<string, Readonly<Record<string, ApiFieldType>>>>;
