/**
 * Accounts and users. For now: bootstrap, which gives an empty store one account, one
 * unrestricted user and a `*` token. Tokens are stored hashed, so an earlier one cannot be
 * shown again: a later start hands out the one its caller kept, while it is still usable,
 * or mints another.
 */
import { bootstrapTokenLabel } from "../../../contract";
import type { EventRepos } from "../events/store";
import type { TokenRepos } from "../tokens/store";
import type { ProfileRepos } from "./store";
import { wireNow, type Deps } from "../../domain/context";
import { Scopes } from "../../../contract/scopes";
import type { TokenService } from "../tokens";
import { newUser } from "./users";
import type { UserRecord } from "../../domain/records";

export interface BootstrapOptions {
  /** A fixed token value for the bootstrap user, created if its hash is not stored yet. */
  token?: string;
  /** The token an earlier start handed out (`mgmt serve` keeps it beside the store): handed out again while usable. */
  kept?: string;
  /** Revoke `kept` and mint a new one (`mgmt serve --new-token`). */
  rotate?: boolean;
  /** On a store that already existed, without `token` and without a usable `kept`: mint a new token (default true). */
  mintToken?: boolean;
}

export interface BootstrapResult {
  /** True when this start created the account. */
  created: boolean;
  user: UserRecord;
  /** The token to hand to the operator; null when none was asked for. */
  token: string | null;
}

export const BOOTSTRAP_USER = { username: "admin", email: "admin@example.com", timezone: "UTC" } as const;

export class AccountService {
  constructor(
    private readonly deps: Deps<ProfileRepos & TokenRepos & EventRepos>,
    private readonly tokens: TokenService,
  ) {}

  async bootstrap(options: BootstrapOptions = {}): Promise<BootstrapResult> {
    const { store, clock, secrets } = this.deps;
    return store.transaction(async (tx) => {
      const now = wireNow(clock);
      let created = false;
      let user: UserRecord | undefined;
      if ((await tx.accounts.count()) === 0) {
        const account = await tx.accounts.insert({ euuid: secrets.uuid().toUpperCase(), active_since: now });
        user = await tx.users.insert(newUser(this.deps, { accountId: account.id, ...BOOTSTRAP_USER }));
        created = true;
      } else {
        user = await tx.users.first();
        if (user === undefined) throw new Error("the store has an account but no user; it was not created by mgmt serve");
      }

      const mint = (value?: string) => this.tokens.mint({ userId: user.id, label: bootstrapTokenLabel(now), scopes: Scopes.ALL, expiry: null, value }, tx);

      if (options.token !== undefined) {
        const existing = await this.tokens.findByValue(options.token, tx);
        if (existing === undefined) await mint(options.token);
        else if (!this.tokens.usable(existing)) throw new Error("the fixed bootstrap token (MGMT_SERVE_TOKEN) was revoked or has expired in this store");
        return { created, user, token: options.token };
      }
      if (options.kept !== undefined) {
        const kept = await this.tokens.findByValue(options.kept, tx);
        if (kept !== undefined && this.tokens.usable(kept)) {
          if (options.rotate !== true) return { created, user, token: options.kept };
          await tx.tokens.revoke(kept.id, now);
        }
      }
      if (created || options.mintToken !== false) return { created, user, token: (await mint()).token };
      return { created, user, token: null };
    });
  }
}
