/** Entity transfers between accounts (`/account/entity-transfers`). */
import type { Deps } from "../../domain/context";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import type { TagRepos } from "../tags/store";
import { defineArea } from "../area";
import { entityTransferRoutes } from "./routes";
import { TransferService } from "./service";
import { transferRepos, type TransferRepos } from "./store";

export const transfers = defineArea({
  repos: transferRepos,
  services: (deps: Deps<TransferRepos & TagRepos & ProfileRepos & EventRepos>) => ({ transfers: new TransferService(deps) }),
  routes: entityTransferRoutes,
});
