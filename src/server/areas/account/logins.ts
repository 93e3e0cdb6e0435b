/** The logins of every user of the account (`/account/logins`): unrestricted users only, within the login history. */
import { LOGIN_HISTORY_DAYS, type Page, type PageQuery } from "../../../contract";
import type { LoginRecord } from "../sessions/store";
import { DAY, wireAt, type Actor, type Deps } from "../../domain/context";
import { notFound } from "../../domain/errors";
import { pageOf } from "../../domain/paging";
import { requireUnrestricted } from "../../auth/grants";
import type { AccountAreaRepos } from "./details";

export class AccountLoginService {
  constructor(private readonly deps: Deps<AccountAreaRepos>) {}

  // --- account logins ---------------------------------------------------------------------

  private async since(actor: Actor): Promise<string> {
    await requireUnrestricted(this.deps.store, actor);
    return wireAt(this.deps.clock, -LOGIN_HISTORY_DAYS * DAY);
  }

  /** The store pages: the login history's window and the page are the query's. */
  async listLogins(actor: Actor, query: PageQuery): Promise<Page<LoginRecord>> {
    const since = await this.since(actor);
    return pageOf(query, (slice) => this.deps.store.logins.pageOfAccount(actor.user.account_id, since, slice));
  }

  async getLogin(actor: Actor, id: number): Promise<LoginRecord> {
    const login = await this.deps.store.logins.getOfAccount(actor.user.account_id, id, await this.since(actor));
    if (login === undefined) throw notFound();
    return login;
  }
}
