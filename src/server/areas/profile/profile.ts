/** The acting user's profile. */
import type { z } from "zod";
import type { ProfileUpdate } from "../../../contract";
import type { EventRepos } from "../events/store";
import type { ProfileRepos, UserPatch } from "./store";
import type { Actor, Deps } from "../../domain/context";
import { forbidden, invalid, invalidToken } from "../../domain/errors";
import { entities } from "../../domain/event-entities";
import { noteEvent } from "../events";
import type { UserRecord } from "../../domain/records";

export type ProfileChange = z.output<typeof ProfileUpdate>;

export class ProfileService {
  constructor(private readonly deps: Deps<ProfileRepos & EventRepos>) {}

  async get(actor: Actor): Promise<UserRecord> {
    const user = await this.deps.store.users.get(actor.user.id);
    if (user === undefined) throw invalidToken();
    return user;
  }

  /**
   * `PUT /profile`: a partial update. Rules: a proxy user's email cannot change;
   * `ip_whitelist_enabled` can be turned off but never on; `restricted` and
   * `two_factor_auth` can only be sent with their current values (they change elsewhere).
   */
  async update(actor: Actor, change: ProfileChange): Promise<UserRecord> {
    return this.deps.store.transaction(async (tx) => {
      const user = await tx.users.get(actor.user.id);
      if (user === undefined) throw invalidToken();
      const patch: UserPatch = {};
      if (change.email !== undefined && change.email !== user.email) {
        if (user.user_type === "proxy") throw forbidden("email", "The email of a proxy user cannot be changed");
        patch.email = change.email;
      }
      if (change.restricted !== undefined && change.restricted !== user.restricted) {
        throw invalid("restricted", "restricted cannot be changed through the profile");
      }
      if (change.two_factor_auth !== undefined && change.two_factor_auth !== user.two_factor_auth) {
        throw invalid(
          "two_factor_auth",
          "Use POST /profile/tfa-enable and /profile/tfa-enable-confirm to enable two-factor authentication, POST /profile/tfa-disable to disable it",
        );
      }
      if (change.ip_whitelist_enabled === true && !user.ip_whitelist_enabled) {
        throw invalid("ip_whitelist_enabled", "IP whitelisting is deprecated and cannot be enabled");
      }
      if (change.ip_whitelist_enabled === false) patch.ip_whitelist_enabled = false;
      if (change.authorized_keys !== undefined) patch.authorized_keys = change.authorized_keys?.map((k) => k.trim()) ?? null;
      if (change.email_notifications !== undefined) patch.email_notifications = change.email_notifications;
      if (change.lish_auth_method !== undefined) patch.lish_auth_method = change.lish_auth_method;
      if (change.timezone !== undefined) patch.timezone = change.timezone;
      const updated = await tx.users.update(user.id, patch);
      if (updated === undefined) throw invalidToken();
      await noteEvent(this.deps, { actor, action: "profile_update", entity: entities.profile(updated) }, tx);
      return updated;
    });
  }
}
