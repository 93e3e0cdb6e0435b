/** data mgmt_profile: the profile of the user the provider acts as. */
import type { ProviderContext } from "../config";
import { bool, list, number, object, string } from "../framework/attributes";
import { defineDataSource } from "../framework/resource";

export const profileDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_profile",
  description: "The profile of the user the provider's token acts for.",
  attributes: {
    id: string("computed", "The user's uid, as a string."),
    uid: number("computed", "Unique, immutable user id."),
    username: string("computed", "Login name."),
    email: string("computed", "Address used for communication."),
    timezone: string("computed", "Preferred display timezone."),
    email_notifications: bool("computed", "Whether account-activity emails are sent."),
    ip_whitelist_enabled: bool("computed", "Deprecated IP allow-list setting."),
    lish_auth_method: string("computed", "Methods allowed for Lish connections: password_keys, keys_only or disabled."),
    authorized_keys: list("computed", "SSH keys authorized for Lish; null when none are set.", "string"),
    two_factor_auth: bool("computed", "Whether logins from untrusted computers need a two-factor code."),
    restricted: bool("computed", "Whether the user's access is limited by grants."),
    user_type: string("computed", "The kind of user: default, parent, child or proxy."),
    authentication_type: string("computed", "How the user authenticates to the console: password or idp."),
    verified_phone_number: string("computed", "The verified phone number, or null."),
    referrals: object("computed", "Referral code, URL and counters.", {
      code: string("computed", "The referral code."),
      url: string("computed", "The referral URL."),
      total: number("computed", "Referrals made."),
      completed: number("computed", "Referrals that became active accounts."),
      pending: number("computed", "Referrals not yet completed."),
      credit: number("computed", "Credit earned from referrals."),
    }),
  },

  async read({ ctx }) {
    const p = await ctx.client.getProfile();
    return {
      id: String(p.uid),
      uid: p.uid,
      username: p.username,
      email: p.email,
      timezone: p.timezone,
      email_notifications: p.email_notifications,
      ip_whitelist_enabled: p.ip_whitelist_enabled,
      lish_auth_method: p.lish_auth_method,
      authorized_keys: p.authorized_keys,
      two_factor_auth: p.two_factor_auth,
      restricted: p.restricted,
      user_type: p.user_type,
      authentication_type: p.authentication_type,
      verified_phone_number: p.verified_phone_number,
      referrals: { ...p.referrals },
    };
  },
});
