/** `/profile` and `/profile/grants`. */
import { GrantsResponse, Profile, ProfileUpdate } from "../../../contract";
import type { Domain } from "../../domain";
import { parseInput } from "../errors";
import { answer, profileView } from "../present";
import type { Router } from "../router";

export function profileRoutes(r: Router, domain: Domain): void {
  // Any valid token, whatever its scopes.
  r.get("/profile", "token", async ({ actor }) => answer(Profile, profileView(await domain.profile.get(actor))), {
    summary: "View the profile",
    response: Profile,
  });

  r.put("/profile", "account:read_write", async ({ req, actor }) => {
    const change = parseInput(ProfileUpdate, req.body);
    return answer(Profile, profileView(await domain.profile.update(actor, change)));
  }, { summary: "Update the profile", body: ProfileUpdate, response: Profile });

  // Any valid token; an unrestricted user has no grants: 204, no body.
  r.get("/profile/grants", "token", async ({ actor }) => {
    const grants = await domain.users.grants(actor);
    return grants === null ? { status: 204, body: undefined } : answer(GrantsResponse, grants);
  }, { summary: "View the grants of a restricted user (204 for an unrestricted one)", response: GrantsResponse });
}
