/** `/profile`. */
import { Profile } from "../../../contract";
import type { Domain } from "../../domain";
import { answer, profileView } from "../present";
import type { Router } from "../router";

export function profileRoutes(r: Router, domain: Domain): void {
  // Any valid token, whatever its scopes.
  r.get("/profile", "token", async ({ actor }) => answer(Profile, profileView(await domain.profile.get(actor))));
}
