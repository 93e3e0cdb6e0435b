/**
 * The account's routes, one file per sub-area: details and cancellation, billing, notices
 * (availability, maintenance, notifications), the account's logins and child accounts.
 */
import type { BillingService } from "./billing";
import type { ChildAccountService } from "./child-accounts";
import type { AccountDetailsService } from "./details";
import type { AccountLoginService } from "./logins";
import type { AccountNoticeService } from "./notices";
import type { Router } from "../../http/router";
import { billingRoutes } from "./billing-routes";
import { childAccountRoutes } from "./child-routes";
import { detailsRoutes } from "./details-routes";
import { loginRoutes } from "./logins-routes";
import { noticeRoutes } from "./notices-routes";

interface AccountServices {
  accountDetails: AccountDetailsService;
  billing: BillingService;
  notices: AccountNoticeService;
  accountLogins: AccountLoginService;
  childAccounts: ChildAccountService;
}

export function accountRoutes(r: Router, domain: AccountServices): void {
  detailsRoutes(r, domain.accountDetails);
  noticeRoutes(r, domain.notices);
  childAccountRoutes(r, domain.childAccounts);
  billingRoutes(r, domain.billing);
  loginRoutes(r, domain.accountLogins);
}
