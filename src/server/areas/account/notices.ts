/**
 * What the account is told: region availability, maintenance and notifications. All are
 * written by the operator (`seed*`: fixtures, the admin namespace, tests) and read by the API.
 */
import type { MaintenanceItem, Notification, Page, PageQuery } from "../../../contract";
import type { AvailabilityRecord } from "./store";
import { maintenanceView, notificationView } from "./stored-views";
import { timestamp, type Actor, type Deps } from "../../domain/context";
import { notFound } from "../../domain/errors";
import { pageFrom } from "../../domain/paging";
import { grantsOf, requireAccountAccess } from "../../auth/grants";
import type { AccountAreaRepos } from "./details";

/** Region availability when none was seeded for the account: every service everywhere. */
export const DEFAULT_REGIONS = [
  "ap-northeast",
  "ap-south",
  "ap-southeast",
  "ap-west",
  "ca-central",
  "eu-central",
  "eu-west",
  "us-central",
  "us-east",
  "us-southeast",
  "us-west",
];
export const DEFAULT_SERVICES = ["Block Storage", "Computes", "Kubernetes", "Managed Databases", "NodeBalancers"];

export class AccountNoticeService {
  constructor(private readonly deps: Deps<AccountAreaRepos>) {}

  // --- availability -----------------------------------------------------------------------

  private async availability(accountId: number): Promise<AvailabilityRecord[]> {
    const stored = await this.deps.store.notices.listAvailability(accountId);
    return stored ?? DEFAULT_REGIONS.map((region) => ({ region, available: [...DEFAULT_SERVICES], unavailable: [] }));
  }

  async listAvailability(actor: Actor, query: PageQuery): Promise<Page<AvailabilityRecord>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    return pageFrom(query, await this.availability(actor.user.account_id));
  }

  async getAvailability(actor: Actor, region: string): Promise<AvailabilityRecord> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const found = (await this.availability(actor.user.account_id)).find((r) => r.region === region);
    if (found === undefined) throw notFound();
    return found;
  }

  // --- maintenance and notifications ------------------------------------------------------

  /** Not canceled, and only entities the user may view (compute grants for a restricted user). */
  async listMaintenance(actor: Actor, query: PageQuery): Promise<Page<MaintenanceItem>> {
    const grants = await grantsOf(this.deps.store, actor);
    const visible = grants === null ? null : new Set(grants.compute.filter((g) => g.permissions !== null).map((g) => String(g.id)));
    const rows = await this.deps.store.notices.listMaintenance(actor.user.account_id);
    const items = rows
      .map(maintenanceView)
      .filter((m) => m.status !== "canceled")
      .filter((m) => visible === null || visible.has(String(m.entity.id)));
    return pageFrom(query, items);
  }

  /** Unresolved notifications whose `until` has not passed. */
  async listNotifications(actor: Actor, query: PageQuery): Promise<Page<Notification>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const now = timestamp(this.deps.clock);
    const rows = await this.deps.store.notices.listNotifications(actor.user.account_id);
    return pageFrom(
      query,
      rows.map(notificationView).filter((n) => n.until === null || n.until > now),
    );
  }

  async seedAvailability(accountId: number, regions: AvailabilityRecord[]): Promise<void> {
    await this.deps.store.transaction((tx) => tx.notices.replaceAvailability(accountId, regions));
  }

  async seedMaintenance(accountId: number, item: MaintenanceItem): Promise<number> {
    return this.deps.store.notices.insertMaintenance(accountId, item);
  }

  async seedNotification(accountId: number, notification: Notification): Promise<number> {
    return this.deps.store.notices.insertNotification(accountId, notification);
  }

  /** A notification's cause is resolved: it disappears. */
  async resolveNotification(accountId: number, id: number): Promise<void> {
    if (!(await this.deps.store.notices.resolveNotification(accountId, id, timestamp(this.deps.clock)))) throw notFound();
  }
}
