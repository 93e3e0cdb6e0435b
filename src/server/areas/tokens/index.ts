/** Personal access tokens (`/profile/tokens`). */
import type { Deps } from "../../domain/context";
import type { EventRepos } from "../events/store";
import { defineArea } from "../area";
import { tokenRoutes } from "./routes";
import { TokenService } from "./service";
import { tokenRepos, type TokenRepos } from "./store";

/** What the other areas use: the service they mint with (by type) and the token's view. */
export type { TokenService } from "./service";
export { tokenView } from "./routes";

export const tokens = defineArea({
  repos: tokenRepos,
  services: (deps: Deps<TokenRepos & EventRepos>) => ({ tokens: new TokenService(deps) }),
  routes: tokenRoutes,
});
