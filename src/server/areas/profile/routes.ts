/** `/profile`, `/profile/grants` and `/profile/preferences`. */
import { GrantsResponse, Preferences, PreferencesBody, Profile, ProfileUpdate } from "../../../contract";
import type { PreferencesService } from "./preferences";
import type { ProfileService } from "./profile";
import type { UserService } from "./users";
import { answer } from "../../http/present";
import type { Router } from "../../http/router";
import type { UserRecord } from "../../domain/records";

/** Where referral links point (the contract shows no host). */
export const REFERRAL_URL_BASE = "https://www.example.com/?r=";

export const profileView = (user: UserRecord): Profile => ({
  authentication_type: user.authentication_type,
  authorized_keys: user.authorized_keys,
  email: user.email,
  email_notifications: user.email_notifications,
  ip_whitelist_enabled: user.ip_whitelist_enabled,
  lish_auth_method: user.lish_auth_method,
  referrals: { code: user.referral_code, url: REFERRAL_URL_BASE + user.referral_code, completed: 0, credit: 0, pending: 0, total: 0 },
  restricted: user.restricted,
  timezone: user.timezone,
  two_factor_auth: user.two_factor_auth,
  uid: user.id,
  username: user.username,
  user_type: user.user_type,
  verified_phone_number: user.verified_phone_number,
});

export function profileRoutes(r: Router, domain: { profile: ProfileService; users: UserService; preferences: PreferencesService }): void {
  // Any valid token, whatever its scopes.
  r.get(
    "/profile",
    "token",
    {
      summary: "View the profile",
      response: Profile,
    },
    async ({ actor }) => answer(Profile, profileView(await domain.profile.get(actor))),
  );

  r.put("/profile", "account:read_write", { summary: "Update the profile", body: ProfileUpdate, response: Profile }, async ({ actor, body }) => {
    const change = body();
    return answer(Profile, profileView(await domain.profile.update(actor, change)));
  });

  // Any valid token; an unrestricted user has no grants: 204, no body.
  r.get(
    "/profile/grants",
    "token",
    { summary: "View the grants of a restricted user (204 for an unrestricted one)", response: GrantsResponse },
    async ({ actor }) => {
      const grants = await domain.users.grants(actor);
      return grants === null ? { status: 204, body: undefined } : answer(GrantsResponse, grants);
    },
  );

  r.get(
    "/profile/preferences",
    "account:read_only",
    {
      summary: "View preferences",
      response: Preferences,
    },
    async ({ actor }) => answer(Preferences, await domain.preferences.get(actor)),
  );
  r.put(
    "/profile/preferences",
    "account:read_write",
    {
      summary: "Replace preferences",
      body: PreferencesBody,
      response: Preferences,
    },
    async ({ actor, body }) => answer(Preferences, await domain.preferences.put(actor, body())),
  );
}
