/** Child accounts and their proxy-user tokens: `/account/child-accounts`. */
import { API_FILTERABLE, ChildAccount, PersonalAccessToken } from "../../../contract";
import type { ChildAccountService } from "./child-accounts";
import { answer, pageView } from "../../http/present";
import { tokenView } from "../tokens";
import type { Router } from "../../http/router";
import { childAccountView, pathText } from "./details-routes";

export function childAccountRoutes(r: Router, childAccounts: ChildAccountService): void {
  r.list(
    "/account/child-accounts",
    "child_account:read_only",
    { item: ChildAccount, filter: API_FILTERABLE["/account/child-accounts"], summary: "List child accounts" },
    async ({ actor }, query) => pageView(await childAccounts.list(actor, query), childAccountView),
  );
  r.get("/account/child-accounts/:euuid", "child_account:read_only", { summary: "View a child account", response: ChildAccount }, async ({ req, actor }) =>
    answer(ChildAccount, childAccountView(await childAccounts.get(actor, pathText(req, "euuid")))),
  );
  r.post(
    "/account/child-accounts/:euuid/token",
    "child_account:read_write",
    { summary: "Create a proxy user token", response: PersonalAccessToken },
    async ({ req, actor }) => {
      const { record, token } = await childAccounts.createToken(actor, pathText(req, "euuid"));
      return answer(PersonalAccessToken, tokenView(record, token));
    },
  );
}
