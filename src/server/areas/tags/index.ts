/** Tags (`/tags`) and the read-only account objects they apply to. */
import type { Deps } from "../../domain/context";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import { defineArea } from "../area";
import { ObjectService } from "./objects";
import { tagRoutes } from "./routes";
import { TagService } from "./service";
import { tagRepos, type TagRepos } from "./store";

export const tags = defineArea({
  repos: tagRepos,
  services: (deps: Deps<TagRepos & ProfileRepos & EventRepos>) => {
    const objects = new ObjectService(deps);
    return { objects, tags: new TagService(deps, objects) };
  },
  routes: tagRoutes,
});
