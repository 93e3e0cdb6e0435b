/** OAuth clients (`/account/oauth-clients`) and their authorizations, the apps of a profile (`/profile/apps`). */
import type { Deps } from "../../domain/context";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import type { TokenService } from "../tokens";
import type { TokenRepos } from "../tokens/store";
import { defineArea } from "../area";
import { oauthRoutes } from "./routes";
import { OAuthService } from "./service";
import { oauthRepos, type OAuthRepos } from "./store";

export const oauth = defineArea({
  repos: oauthRepos,
  services: (deps: Deps<OAuthRepos & TokenRepos & ProfileRepos & EventRepos>, uses: { tokens: TokenService }) => ({
    oauth: new OAuthService(deps, uses.tokens),
  }),
  routes: oauthRoutes,
});
