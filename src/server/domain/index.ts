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
}

export function createDomain(deps: Deps): Domain {
  const tokens = new TokenService(deps);
  const securityQuestions = new SecurityQuestionService(deps);
  return {
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
  };
}

export type { Actor, Deps } from "./context";
export { DomainError } from "./errors";
export { Scopes, type Scope } from "./scopes";
