/** The logins of every user of the account (`/account/logins`): unrestricted users only, within the login history. */
import { LOGIN_HISTORY_DAYS, type Page, type PageQuery } from "../../../contract";
import type { LoginRecord } from "../sessions/store";
import { DAY, timestampAt, type Actor, type Deps } from "../../domain/context";
import { notFound } from "../../domain/errors";
import { pageFrom } from "../../domain/paging";
import { requireUnrestricted } from "../profile/grants";
import type { AccountAreaRepos } from "./details";

export class AccountLoginService {
  constructor(private readonly deps: Deps<AccountAreaRepos>) {}

  // --- account logins ---------------------------------------------------------------------

  private async accountLogins(actor: Actor): Promise<LoginRecord[]> {
    await requireUnrestricted(this.deps.store, actor);
    return this.deps.store.logins.ofAccount(actor.user.account_id, timestampAt(this.deps.clock, -LOGIN_HISTORY_DAYS * DAY));
  }

  async listLogins(actor: Actor, query: PageQuery): Promise<Page<LoginRecord>> {
    return pageFrom(query, await this.accountLogins(actor));
  }

  async getLogin(actor: Actor, id: number): Promise<LoginRecord> {
    const login = (await this.accountLogins(actor)).find((l) => l.id === id);
    if (login === undefined) throw notFound();
    return login;
  }
}
