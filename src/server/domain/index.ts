/**
 * The backend: one service per area over a shared store, clock and secret source. Routes
 * call these; they hold the rules and state transitions, never SQL or HTTP.
 */
import type { Deps } from "./context";
import { AccountService } from "./accounts";
import { ProfileService } from "./profile";
import { SshKeyService } from "./sshkeys";
import { TokenService } from "./tokens";
import { OAuthService } from "./oauth";
import { PhoneService } from "./phone";
import { PreferencesService } from "./preferences";
import { SecurityQuestionService, TwoFactorService } from "./security";
import { DeviceService, LoginService } from "./sessions";
import { UserService } from "./users";
import { EventService } from "./events";
import { ObjectService } from "./objects";
import { TagService } from "./tags";
import { TransferService } from "./transfers";
import { BillingService } from "./billing";
import { ChildAccountService } from "./child-accounts";

export interface Domain {
  readonly accounts: AccountService;
  readonly users: UserService;
  readonly tokens: TokenService;
  readonly oauth: OAuthService;
  readonly profile: ProfileService;
  readonly sshKeys: SshKeyService;
  readonly devices: DeviceService;
  readonly logins: LoginService;
  readonly phone: PhoneService;
  readonly securityQuestions: SecurityQuestionService;
  readonly twoFactor: TwoFactorService;
  readonly preferences: PreferencesService;
  /** The event feed; `events.record(...)` is how every area adds to it (see `./events`). */
  readonly events: EventService;
  /** Compute instances, domains, volumes, load balancers: read-only, seeded by fixtures/admin. */
  readonly objects: ObjectService;
  readonly tags: TagService;
  readonly transfers: TransferService;
  /** The billing account: contact, cancel, cards, invoices, availability, logins, maintenance, notifications. */
  readonly billing: BillingService;
  /** Child accounts and proxy-user tokens. */
  readonly childAccounts: ChildAccountService;
}

export function createDomain(deps: Deps): Domain {
  const tokens = new TokenService(deps);
  const securityQuestions = new SecurityQuestionService(deps);
  const billing = new BillingService(deps);
  return {
    billing,
    childAccounts: new ChildAccountService(deps, billing, tokens),
    accounts: new AccountService(deps, tokens),
    users: new UserService(deps),
    tokens,
    oauth: new OAuthService(deps, tokens),
    profile: new ProfileService(deps),
    sshKeys: new SshKeyService(deps),
    devices: new DeviceService(deps),
    logins: new LoginService(deps),
    phone: new PhoneService(deps),
    securityQuestions,
    twoFactor: new TwoFactorService(deps, securityQuestions),
    preferences: new PreferencesService(deps),
    events: new EventService(deps),
    objects: new ObjectService(deps),
    tags: new TagService(deps, new ObjectService(deps)),
    transfers: new TransferService(deps),
  };
}

export type { Actor, Deps } from "./context";
export { DomainError } from "./errors";
export { Scopes, type Scope } from "../../contract/scopes";
// The records routes shape into contract views, and the ids that can name one: the store keeps them, HTTP takes them from here.
export type { DeviceRecord, LoginRecord, OAuthAppView, OAuthClientRecord, SshKeyRecord, TokenRecord, UserRecord } from "../store/store";
export type { PaymentMethodRecord } from "../store/billing";
export { isStorableId } from "../store/store";
