/**
 * Child accounts and proxy-user tokens. A child account is an account whose billing row names
 * a parent; it holds one proxy user, named from the parent's company and the child's euuid,
 * through which parent users act in the child. Child accounts are created by the operator
 * (`seedChild`: fixtures, the admin namespace, tests), never by the API.
 */
import { createHash } from "node:crypto";
import { PROXY_TOKEN_MINUTES, TOKEN_LABEL, type Page, type PageQuery } from "../../../contract";
import type { StoreOf } from "../../store/store";
import type { AccountRecord } from "../profile/store";
import type { AccountBillingRecord, AccountDetails } from "./store";
import { AccountDetailsService, type AccountAreaRepos, type AccountView, defaultDetails } from "./details";
import { MINUTE, wireNow, wireAt, type Actor, type Deps } from "../../domain/context";
import { DomainError, forbidden, notFound } from "../../domain/errors";
import { pageFrom } from "../../domain/paging";
import { Scopes } from "../../../contract/scopes";
import type { TokenService } from "../tokens";
import { grantsOf, unauthorized } from "../../auth/grants";
import { newUser } from "../profile";
import type { TokenRecord, UserRecord } from "../../domain/records";

/** The proxy user's name: `<company[0..15]>_<sha256(company + euuid)[0..16]>`. */
export function proxyUsername(parentCompany: string, childEuuid: string): string {
  const hash = createHash("sha256")
    .update(parentCompany + childEuuid, "utf8")
    .digest("hex");
  return `${parentCompany.slice(0, 15)}_${hash.slice(0, 16)}`;
}

export interface NewChildInput {
  /** Default: the first (bootstrap) user's account. */
  parentAccountId?: number;
  /** Default: a random upper-case UUID. */
  euuid?: string;
  details?: Partial<AccountDetails>;
  /** Whether the proxy user is restricted (default false). */
  proxyRestricted?: boolean;
  /** false: the child account is canceled (not listed, does not block the parent's cancel). */
  active?: boolean;
}

type Store = StoreOf<AccountAreaRepos>;

export class ChildAccountService {
  constructor(
    private readonly deps: Deps<AccountAreaRepos>,
    private readonly account: AccountDetailsService,
    private readonly tokens: TokenService,
    /** Lifetime of proxy-user tokens. */
    private readonly tokenMinutes: number = PROXY_TOKEN_MINUTES,
  ) {}

  /** Rule 4: an unrestricted user, or a restricted one with `child_account_access`; never a child-account user. */
  private async requireAccess(actor: Actor, store: Store): Promise<void> {
    if (await this.account.isChildAccountUser(actor.user, store)) throw forbidden(null, "Child account users cannot use child account operations");
    const grants = await grantsOf(store, actor);
    if (grants !== null && !grants.global.child_account_access) throw unauthorized();
  }

  private async activeChildren(parentId: number, store: Store): Promise<AccountBillingRecord[]> {
    return (await store.billing.children(parentId)).filter((c) => c.canceled === null);
  }

  async list(actor: Actor, query: PageQuery): Promise<Page<AccountView>> {
    return this.deps.store.transaction(async (tx) => {
      await this.requireAccess(actor, tx);
      const page = pageFrom(query, await this.activeChildren(actor.user.account_id, tx));
      return { ...page, data: await Promise.all(page.data.map((c) => this.account.viewOf(c.account_id, tx))) };
    });
  }

  private async child(actor: Actor, euuid: string, store: Store): Promise<AccountBillingRecord> {
    await this.requireAccess(actor, store);
    const account = await store.accounts.byEuuid(euuid);
    const record = account && (await store.billing.getAccount(account.id));
    if (record === undefined || record.parent_account_id !== actor.user.account_id || record.canceled !== null) throw notFound();
    return record;
  }

  async get(actor: Actor, euuid: string): Promise<AccountView> {
    return this.deps.store.transaction(async (tx) => this.account.viewOf((await this.child(actor, euuid, tx)).account_id, tx));
  }

  /**
   * A token for the child's proxy user: scopes `*` (the proxy user's own permissions apply),
   * expiring after the proxy-token lifetime; a new call mints a new token (none is renewed).
   */
  async createToken(actor: Actor, euuid: string): Promise<{ record: TokenRecord; token: string }> {
    return this.deps.store.transaction(async (tx) => {
      const child = await this.child(actor, euuid, tx);
      const proxyId = await tx.users.proxyOf(child.account_id);
      if (proxyId === undefined) throw new DomainError("conflict", [{ reason: "The child account has no proxy user" }]);
      const epoch = Math.floor(this.deps.clock.now().getTime() / 1000);
      const label = `${actor.user.username}_${actor.user.id}_${epoch}`.slice(0, TOKEN_LABEL.max);
      return this.tokens.mint({ userId: proxyId, label, scopes: Scopes.ALL, expiry: wireAt(this.deps.clock, this.tokenMinutes * MINUTE) }, tx);
    });
  }

  /** Creates a child account of `parentAccountId` with its proxy user. */
  async seedChild(input: NewChildInput = {}): Promise<{ account: AccountRecord; proxyUser: UserRecord }> {
    const { store, clock, secrets } = this.deps;
    return store.transaction(async (tx) => {
      const parentId = input.parentAccountId ?? (await tx.users.first())?.account_id;
      if (parentId === undefined || (await tx.accounts.get(parentId)) === undefined) throw notFound();
      const parent = await this.account.billing(parentId, tx);
      if (parent.parent_account_id !== null) throw new DomainError("conflict", [{ reason: "A child account cannot have child accounts" }]);
      const now = wireNow(clock);
      const euuid = input.euuid ?? secrets.uuid().toUpperCase();
      if ((await tx.accounts.byEuuid(euuid)) !== undefined) throw new DomainError("conflict", [{ field: "euuid", reason: "euuid is taken" }]);
      const account = await tx.accounts.insert({ euuid, active_since: now });
      await tx.billing.putAccount({
        account_id: account.id,
        parent_account_id: parentId,
        details: { ...defaultDetails(), ...input.details, billing_source: "external", active_promotions: [] },
        canceled: input.active === false ? now : null,
        card_declines: false,
      });
      const username = proxyUsername(parent.details.company, euuid);
      const proxyUser = await tx.users.insert(
        newUser(this.deps, {
          accountId: account.id,
          username,
          email: `proxy+${username.slice(-16)}@example.com`,
          restricted: input.proxyRestricted ?? false,
          userType: "proxy",
        }),
      );
      return { account, proxyUser };
    });
  }

  /**
   * Activates or cancels a child account (operator action). Canceling revokes every token of
   * its users, the proxy user's included, as canceling through the API does: a revoked token
   * is refused on its next request by every server on the store (token lookups are remembered
   * only while the tokens table is unchanged), where a check of the account alone would not
   * be. Activating again brings none of them back.
   */
  async setChildActive(childAccountId: number, active: boolean): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const record = await tx.billing.getAccount(childAccountId);
      if (record === undefined || record.parent_account_id === null) throw notFound();
      if (active) {
        await tx.billing.putAccount({ ...record, canceled: null });
        return;
      }
      const now = wireNow(this.deps.clock);
      await tx.billing.putAccount({ ...record, canceled: record.canceled ?? now });
      await tx.tokens.revokeOfUsers(await tx.users.idsOf(childAccountId), now);
    });
  }
}
