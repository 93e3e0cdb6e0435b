/**
 * mgmt_profile_settings: the acting user's profile settings (`PUT /profile`), a singleton with
 * the account contact's semantics: only configured attributes are managed.
 */
import type { Profile, ProfileUpdate } from "../../../contract";
import { LISH_AUTH_METHODS } from "../../../contract/enums";
import { email, secretInPublicKey, sshPublicKeyText, timeZone } from "../../../contract/field-rules";
import { sameSshKey } from "../../../contract/sshkey-format";
import type { ProviderContext } from "../../config";
import { bool, list, string } from "../../framework/attributes";
import { defineResource } from "../../framework/resource";
import { eachElement, oneOf } from "../../framework/validators";
import type { TfValue } from "../../framework/value";
import type { StateOf } from "../../framework/value-types";
import { singletonCrud } from "../singleton";

const sameKeys = (a: readonly TfValue[], b: readonly TfValue[]) =>
  a.length === b.length && a.every((k, i) => typeof k === "string" && typeof b[i] === "string" && sameSshKey(k, b[i] as string));

const managed = "Managed only when set.";

const attributes = {
  id: string("computed", "The user's uid.", { keepPrior: true }),
  email: string("optional_computed", `Address used for communication. ${managed}`, { keepPrior: true, validate: email }),
  timezone: string("optional_computed", `Display time zone, an IANA name such as UTC or Europe/Berlin. ${managed}`, {
    keepPrior: true,
    validate: timeZone,
  }),
  email_notifications: bool("optional_computed", `Whether account-activity emails are sent. ${managed}`, { keepPrior: true }),
  lish_auth_method: string("optional_computed", `How Lish connections authenticate: ${LISH_AUTH_METHODS.join(", ")}. ${managed}`, {
    keepPrior: true,
    validate: oneOf(LISH_AUTH_METHODS),
  }),
  authorized_keys: list(
    "optional_computed",
    `SSH public keys authorized for Lish, in OpenSSH format; a different comment or spacing around the same key is not a change. ${managed}`,
    "string",
    {
      keepPrior: true,
      semanticEquals: sameKeys,
      secret: secretInPublicKey,
      validate: eachElement(sshPublicKeyText),
    },
  ),
  restricted: bool(
    "optional_computed",
    `Whether the user is restricted by grants. It changes through user management, not here: setting another value than the live one fails at apply. ${managed}`,
    {
      keepPrior: true,
    },
  ),
  two_factor_auth: bool(
    "optional_computed",
    `Whether two-factor authentication is on. It changes through the two-factor operations, not here: setting another value than the live one fails at apply. ${managed}`,
    {
      keepPrior: true,
    },
  ),
  ip_whitelist_enabled: bool("optional_computed", `Deprecated IP allow-list. It can only be turned off: true is refused at plan. ${managed}`, {
    keepPrior: true,
    validate: (v) => (v ? "can only be disabled: the IP allow-list is deprecated and cannot be turned on; set false or leave it unset" : undefined),
  }),
};

function toState(p: Profile): StateOf<typeof attributes> {
  return {
    id: String(p.uid),
    email: p.email,
    timezone: p.timezone,
    email_notifications: p.email_notifications,
    lish_auth_method: p.lish_auth_method,
    authorized_keys: p.authorized_keys,
    restricted: p.restricted,
    two_factor_auth: p.two_factor_auth,
    ip_whitelist_enabled: p.ip_whitelist_enabled,
  };
}

export const profileSettingsResource = defineResource<ProviderContext>()({
  typeName: "mgmt_profile_settings",
  description:
    "Settings of the profile of the user the provider acts as. The profile always exists: creating this resource adopts it, destroying it only removes it from state. Only the attributes set in the configuration are managed; the others show the live values.",
  importId: { description: "any text; `profile` by convention (the acting user's profile)", example: "profile" },
  attributes,

  ...singletonCrud("mgmt_profile_settings", attributes, {
    what: "profile",
    read: async (ctx) => toState(await ctx.client.getProfile()),
    write: async (ctx, body) => toState(await ctx.client.updateProfile(body as ProfileUpdate)),
  }),
});
