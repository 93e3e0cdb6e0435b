/**
 * The backend: one service per area over a shared store, clock and secret source. Routes
 * call these; they hold the rules and state transitions, never SQL or HTTP.
 */
import type { Deps } from "./context";
import { AccountService } from "./accounts";
import { ProfileService } from "./profile";
import { SshKeyService } from "./sshkeys";
import { TokenService } from "./tokens";

export interface Domain {
  readonly accounts: AccountService;
  readonly tokens: TokenService;
  readonly profile: ProfileService;
  readonly sshKeys: SshKeyService;
}

export function createDomain(deps: Deps): Domain {
  const tokens = new TokenService(deps);
  return {
    accounts: new AccountService(deps, tokens),
    tokens,
    profile: new ProfileService(deps),
    sshKeys: new SshKeyService(deps),
  };
}

export type { Actor, Deps } from "./context";
export { DomainError } from "./errors";
export { Scopes, type Scope } from "./scopes";
