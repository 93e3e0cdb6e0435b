/**
 * Users beyond the bootstrap one, and grants. The API of this part cannot create users or set
 * grants; these functions are for the admin namespace and the fixtures file (later) and tests.
 * Grants matter to restricted users only: an unrestricted user may do everything.
 */
import { GrantsResponse } from "../../../contract";
import type { NewUser, ProfileRepos } from "./store";
import { wireNow, type Actor, type Deps } from "../../domain/context";
import { grantsOf } from "../../auth/grants";
import { DomainError, notFound } from "../../domain/errors";
import type { UserRecord, UserType } from "../../domain/records";

export interface NewUserInput {
  username: string;
  email: string;
  restricted?: boolean;
  /** `proxy`: a parent-account user acting for a child account. */
  userType?: UserType;
  /** Default: the account of the first (bootstrap) user. */
  accountId?: number;
}

/** Who a new user is; everything else starts as it does for every new user. */
export interface NewUserIdentity {
  accountId: number;
  username: string;
  email: string;
  restricted?: boolean;
  userType?: UserType;
  timezone?: string;
}

/** A new user's row: the identity given, and the settings every new user starts with. */
export function newUser(deps: Pick<Deps, "clock" | "secrets">, who: NewUserIdentity): NewUser {
  return {
    account_id: who.accountId,
    username: who.username,
    email: who.email,
    restricted: who.restricted ?? false,
    user_type: who.userType ?? "default",
    authentication_type: "password",
    authorized_keys: null,
    email_notifications: true,
    ip_whitelist_enabled: false,
    lish_auth_method: "password_keys",
    timezone: who.timezone ?? "UTC",
    two_factor_auth: false,
    verified_phone_number: null,
    referral_code: deps.secrets.hex(20),
    created: wireNow(deps.clock),
  };
}

export class UserService {
  constructor(private readonly deps: Deps<ProfileRepos>) {}

  async create(input: NewUserInput): Promise<UserRecord> {
    const { store } = this.deps;
    return store.transaction(async (tx) => {
      const accountId = input.accountId ?? (await tx.users.first())?.account_id;
      if (accountId === undefined) throw new Error("no account to add the user to");
      try {
        return await tx.users.insert(
          newUser(this.deps, { accountId, username: input.username, email: input.email, restricted: input.restricted, userType: input.userType }),
        );
      } catch (err) {
        if (/unique/i.test(String(err))) throw new DomainError("conflict", [{ field: "username", reason: "Username is taken" }]);
        throw err;
      }
    });
  }

  /** Replaces a user's grants (checked against the contract's shape). */
  async setGrants(userId: number, grants: GrantsResponse): Promise<void> {
    const body = GrantsResponse.parse(grants);
    if ((await this.deps.store.users.get(userId)) === undefined) throw notFound();
    await this.deps.store.transaction((tx) => tx.grants.put(userId, JSON.stringify(body)));
  }

  /** The actor's grants: null for an unrestricted user (who needs none). */
  grants(actor: Actor): Promise<GrantsResponse | null> {
    return grantsOf(this.deps.store, actor);
  }
}
