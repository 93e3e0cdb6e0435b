/** Personal access tokens (`/profile/tokens`) and bearer authentication. */
import type { Deps } from "../../domain/context";
import type { EventRepos } from "../events/store";
import type { OAuthRepos } from "../oauth/store";
import type { ProfileRepos } from "../profile/store";
import { defineArea } from "../area";
import { tokenRoutes } from "./routes";
import { TokenService } from "./service";
import { tokenRepos, type TokenRepos } from "./store";

export const tokens = defineArea({
  repos: tokenRepos,
  services: (deps: Deps<TokenRepos & OAuthRepos & ProfileRepos & EventRepos>) => ({ tokens: new TokenService(deps) }),
  routes: tokenRoutes,
});
