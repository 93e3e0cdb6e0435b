/** data mgmt_profile: the profile of the user the provider acts as. */
import type { Profile } from "../../contract";
import type { ProviderContext } from "../config";
import type { DataSourceDefinition } from "../framework/resource";
import type { Attribute } from "../framework/schema";

const computed = (type: Attribute["type"], description: string): Attribute => ({ type, computed: true, description, description_kind: "plain" });

export const profileDataSource: DataSourceDefinition<ProviderContext> = {
  typeName: "mgmt_profile",
  schema: {
    version: 0,
    block: {
      description: "The profile of the user the provider's token acts for.",
      description_kind: "plain",
      attributes: {
        id: computed("string", "The user's uid, as a string."),
        uid: computed("number", "Unique, immutable user id."),
        username: computed("string", "Login name."),
        email: computed("string", "Address used for communication."),
        timezone: computed("string", "Preferred display timezone."),
        email_notifications: computed("bool", "Whether account-activity emails are sent."),
        ip_whitelist_enabled: computed("bool", "Deprecated IP allow-list setting."),
        lish_auth_method: computed("string", "Methods allowed for Lish connections: password_keys, keys_only or disabled."),
        authorized_keys: computed(["list", "string"], "SSH keys authorized for Lish; null when none are set."),
        two_factor_auth: computed("bool", "Whether logins from untrusted computers need a two-factor code."),
        restricted: computed("bool", "Whether the user's access is limited by grants."),
        authentication_type: computed("string", "How the user authenticates to the console: password or idp."),
        verified_phone_number: computed("string", "The verified phone number, or null."),
        referrals: computed(
          ["object", { code: "string", url: "string", total: "number", completed: "number", pending: "number", credit: "number" }],
          "Referral code, URL and counters.",
        ),
      },
    },
  },

  async read({ client }) {
    const p: Profile = await client.getProfile();
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
      authentication_type: p.authentication_type,
      verified_phone_number: p.verified_phone_number,
      referrals: { ...p.referrals },
    };
  },
};
