/** Accounts and users: bootstrap, `/profile`, grants and preferences. */
import type { Deps } from "../../domain/context";
import type { EventRepos } from "../events/store";
import type { TokenService } from "../tokens";
import type { TokenRepos } from "../tokens/store";
import { defineArea } from "../area";
import { AccountService } from "./accounts";
import { PreferencesService } from "./preferences";
import { ProfileService } from "./profile";
import { profileRoutes } from "./routes";
import { profileRepos, type ProfileRepos } from "./store";
import { UserService } from "./users";

/** What the other areas use: a new user's record (a child account's proxy user). */
export { newUser } from "./users";

export const profile = defineArea({
  repos: profileRepos,
  services: (deps: Deps<ProfileRepos & TokenRepos & EventRepos>, uses: { tokens: TokenService }) => ({
    accounts: new AccountService(deps, uses.tokens),
    users: new UserService(deps),
    profile: new ProfileService(deps),
    preferences: new PreferencesService(deps),
  }),
  routes: profileRoutes,
});
