/** The billing account (`/account`): contact, cancel, payment methods, invoices, availability, logins, maintenance, notifications, child accounts. */
import type { Deps } from "../../domain/context";
import type { TokenService } from "../tokens/service";
import { defineArea } from "../area";
import { ChildAccountService } from "./child-accounts";
import { accountRoutes } from "./routes";
import { BillingService, type AccountAreaRepos } from "./service";
import { accountRepos } from "./store";

export const account = defineArea({
  repos: accountRepos,
  services: (deps: Deps<AccountAreaRepos>, uses: { tokens: TokenService }) => {
    const billing = new BillingService(deps);
    return { billing, childAccounts: new ChildAccountService(deps, billing, uses.tokens) };
  },
  routes: accountRoutes,
});
