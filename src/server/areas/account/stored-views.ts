/**
 * Invoices, their items, maintenance and notifications are stored as the JSON bodies the API answers with,
 * written from seeds of the contract's shapes (fixtures, the admin namespace, tests). They leave the server
 * through these views: each body read by the contract's schema, so a service returns the type its route's
 * response schema takes, and a body the contract no longer accepts fails here, naming the field.
 */
import { Invoice, InvoiceItem, MaintenanceItem, Notification } from "../../../contract";
import type { BodyRecord } from "./store";

/** What an invoice stores: the answer but its id, which is the row's. */
const InvoiceBody = Invoice.omit({ id: true });
export type InvoiceBody = Omit<Invoice, "id">;

export const invoiceView = ({ id, body }: BodyRecord<unknown>): Invoice => ({ ...InvoiceBody.parse(body), id });
export const invoiceItemView = ({ body }: BodyRecord<unknown>): InvoiceItem => InvoiceItem.parse(body);
export const maintenanceView = ({ body }: BodyRecord<unknown>): MaintenanceItem => MaintenanceItem.parse(body);
export const notificationView = ({ body }: BodyRecord<unknown>): Notification => Notification.parse(body);
