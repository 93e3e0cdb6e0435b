/**
 * The account (`/account`), one service per sub-area: its details and cancellation, billing
 * (payment methods, invoices), notices (availability, maintenance, notifications), the logins
 * of its users, and child accounts.
 */
import type { Deps } from "../../domain/context";
import type { TokenService } from "../tokens";
import { defineArea } from "../area";
import { BillingService } from "./billing";
import { ChildAccountService } from "./child-accounts";
import { AccountDetailsService, type AccountAreaRepos } from "./details";
import { AccountLoginService } from "./logins";
import { AccountNoticeService } from "./notices";
import { accountRoutes } from "./routes";
import { accountRepos } from "./store";

export const account = defineArea({
  repos: accountRepos,
  services: (deps: Deps<AccountAreaRepos>, uses: { tokens: TokenService }) => {
    const accountDetails = new AccountDetailsService(deps);
    return {
      accountDetails,
      billing: new BillingService(deps, accountDetails),
      notices: new AccountNoticeService(deps),
      accountLogins: new AccountLoginService(deps),
      childAccounts: new ChildAccountService(deps, accountDetails, uses.tokens),
    };
  },
  routes: accountRoutes,
});
