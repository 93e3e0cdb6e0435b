/**
 * What the account is told: region availability, maintenance and notifications. All are
 * written by the operator (`seed*`: fixtures, the admin namespace, tests) and read by the API.
 */
import type { MaintenanceItem, Notification, Page, PageQuery } from "../../../contract";
import type { Filter } from "../../../contract/x-filter";
import type { AvailabilityRecord } from "./store";
import { maintenanceView, notificationView } from "./stored-views";
import { wireNow, type Actor, type Deps } from "../../domain/context";
import { notFound } from "../../domain/errors";
import { pageFrom, pageOf } from "../../domain/paging";
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

  /** Not canceled, and only entities the user may view (compute grants for a restricted user). The store pages. */
  async listMaintenance(actor: Actor, query: PageQuery): Promise<Page<MaintenanceItem>> {
    return (await this.listMaintenanceWhere(actor, query, null))!;
  }

  /** `listMaintenance` with X-Filter applied by the store too; undefined when `filter` has no exact SQL. */
  async listMaintenanceWhere(actor: Actor, query: PageQuery, filter: Filter | null): Promise<Page<MaintenanceItem> | undefined> {
    const notices = this.deps.store.notices;
    const where = filter === null ? undefined : notices.maintenanceFilter(filter);
    if (filter !== null && where === undefined) return undefined;
    const grants = await grantsOf(this.deps.store, actor);
    const visible = grants === null ? null : grants.compute.filter((g) => g.permissions !== null).map((g) => String(g.id));
    const page = await pageOf(query, (slice) => notices.pageMaintenance(actor.user.account_id, slice, visible, where));
    return { ...page, data: page.data.map(maintenanceView) };
  }

  /** Unresolved notifications whose `until` has not passed; the store pages. */
  async listNotifications(actor: Actor, query: PageQuery): Promise<Page<Notification>> {
    await requireAccountAccess(this.deps.store, actor, "read_only");
    const now = wireNow(this.deps.clock);
    const page = await pageOf(query, (slice) => this.deps.store.notices.pageNotifications(actor.user.account_id, now, slice));
    return { ...page, data: page.data.map(notificationView) };
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
    if (!(await this.deps.store.notices.resolveNotification(accountId, id, wireNow(this.deps.clock)))) throw notFound();
  }
}
