/** The logins of every user of the account: `/account/logins`. */
import { Login } from "../../../contract";
import type { AccountLoginService } from "./logins";
import { answer, pageView } from "../../http/present";
import { loginView } from "../sessions";
import { pathId, type Router } from "../../http/router";

export function loginRoutes(r: Router, accountLogins: AccountLoginService): void {
  r.list("/account/logins", "account:read_only", { item: Login, summary: "List logins of every user of the account" }, async ({ actor }, query) =>
    pageView(await accountLogins.listLogins(actor, query), loginView),
  );
  r.get("/account/logins/:loginId", "account:read_only", { summary: "View a login of any user of the account", response: Login }, async ({ req, actor }) =>
    answer(Login, loginView(await accountLogins.getLogin(actor, pathId(req, "loginId")))),
  );
}
