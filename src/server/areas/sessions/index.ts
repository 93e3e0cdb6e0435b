/** Trusted devices and logins of the profile. */
import type { Deps } from "../../domain/context";
import type { ProfileRepos } from "../profile/store";
import { defineArea } from "../area";
import { sessionRoutes } from "./routes";
import { DeviceService, LoginService } from "./service";
import { sessionRepos, type SessionRepos } from "./store";

/** What the other areas use: a login's view (the account's logins). */
export { loginView } from "./routes";

export const sessions = defineArea({
  repos: sessionRepos,
  services: (deps: Deps<SessionRepos & ProfileRepos>) => ({
    devices: new DeviceService(deps),
    logins: new LoginService(deps),
  }),
  routes: sessionRoutes,
});
