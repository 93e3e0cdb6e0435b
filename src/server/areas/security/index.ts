/** Phone verification, security questions and two-factor authentication of the profile. */
import type { Deps } from "../../domain/context";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import type { TokenRepos } from "../tokens/store";
import { defineArea } from "../area";
import { PhoneService } from "./phone";
import { securityRoutes } from "./routes";
import { SecurityQuestionService, TwoFactorService } from "./service";
import { securityRepos, type SecurityRepos } from "./store";

export const security = defineArea({
  repos: securityRepos,
  services: (deps: Deps<SecurityRepos & ProfileRepos & TokenRepos & EventRepos>) => {
    const securityQuestions = new SecurityQuestionService(deps);
    return { phone: new PhoneService(deps), securityQuestions, twoFactor: new TwoFactorService(deps, securityQuestions) };
  },
  routes: securityRoutes,
});
