/** SSH keys of the profile (`/profile/sshkeys`). */
import type { Deps } from "../../domain/context";
import type { EventRepos } from "../events/store";
import { defineArea } from "../area";
import { sshKeyRoutes } from "./routes";
import { SshKeyService } from "./service";
import { sshKeyRepos, type SshKeyRepos } from "./store";

export const sshKeys = defineArea({
  repos: sshKeyRepos,
  services: (deps: Deps<SshKeyRepos & EventRepos>) => ({ sshKeys: new SshKeyService(deps) }),
  routes: sshKeyRoutes,
});
