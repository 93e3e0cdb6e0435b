/** What the account is told: `/account/availability`, `/account/maintenance`, `/account/notifications`. */
import { API_FILTERABLE, MaintenanceItem, Notification, RegionAvailability } from "../../../contract";
import type { AccountNoticeService } from "./notices";
import { answer } from "../../http/present";
import type { Router } from "../../http/router";
import { pathText } from "./details-routes";

export function noticeRoutes(r: Router, notices: AccountNoticeService): void {
  r.list("/account/availability", "account:read_only", { item: RegionAvailability, summary: "List region availability" }, async ({ actor }, query) =>
    notices.listAvailability(actor, query),
  );
  r.get("/account/availability/:id", "account:read_only", { summary: "View a region's availability", response: RegionAvailability }, async ({ req, actor }) =>
    answer(RegionAvailability, await notices.getAvailability(actor, pathText(req, "id"))),
  );

  r.list(
    "/account/maintenance",
    "token",
    {
      item: MaintenanceItem,
      filter: API_FILTERABLE["/account/maintenance"],
      summary: "List maintenance",
      filtered: ({ actor }, query, filter) => notices.listMaintenanceWhere(actor, query, filter),
    },
    async ({ actor }, query) => notices.listMaintenance(actor, query),
  );
  r.list("/account/notifications", "account:read_only", { item: Notification, summary: "List notifications" }, async ({ actor }, query) =>
    notices.listNotifications(actor, query),
  );
}
