/** data mgmt_grants: what the acting user may do (restricted users; everything for the unrestricted). */
import type { GrantsResponse } from "../../contract";
import { GLOBAL_GRANT_FLAGS, GRANT_ENTITY_TYPES } from "../../contract/enums";
import type { ProviderContext } from "../config";
import { bool, int, list, object, string, type AttributeSpec } from "../framework/attributes";
import { defineDataSource } from "../framework/resource";
import type { StateOf } from "../framework/value-types";

const FLAG_TEXT: Record<(typeof GLOBAL_GRANT_FLAGS)[number], string> = {
  add_databases: "May create databases.",
  add_domains: "May create domains.",
  add_firewalls: "May create firewalls.",
  add_images: "May create images.",
  add_computes: "May create compute instances.",
  add_loadbalancers: "May create load balancers.",
  add_longview: "May create Longview clients.",
  add_nodebalancers: "May create NodeBalancers.",
  add_stackscripts: "May create StackScripts.",
  add_volumes: "May create volumes.",
  add_vpcs: "May create VPCs.",
  cancel_account: "May cancel the account.",
  child_account_access: "May use child accounts (list them, get proxy-user tokens).",
  longview_subscription: "May change the Longview subscription.",
};

const entityGrants = (type: string): AttributeSpec =>
  list(
    "computed",
    `Grants on ${type} entities the user can access.`,
    object("computed", "One entity grant.", {
      id: int("computed", "The entity's id."),
      label: string("computed", "The entity's label."),
      permissions: string("computed", "read_only or read_write; null for no access."),
    }),
  );

const attributes = {
  id: string("computed", 'Always "grants": there is one set per user.'),
  restricted: bool("computed", "Whether the user is restricted (false: the user may do everything and the grant attributes are null)."),
  global: object(
    "computed",
    "Account-wide grants.",
    Object.fromEntries([
      ["account_access", string("computed", "Access to the account's billing and settings: read_only, read_write, or null for none.")],
      ...GLOBAL_GRANT_FLAGS.map((f) => [f, bool("computed", FLAG_TEXT[f])]),
    ]) as Record<string, AttributeSpec>,
  ),
  ...Object.fromEntries(GRANT_ENTITY_TYPES.map((t) => [t, entityGrants(t)])),
};

export const grantsDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_grants",
  description:
    "What the user the provider acts for may do. The API describes grants of restricted users only; for an unrestricted user `restricted` is false and every other attribute is null (it may do everything).",
  attributes,
  async read({ ctx, signal }) {
    // Any valid token may read grants: no scope to name on a refusal.
    const grants = await ctx.client.getGrants({ signal });
    return { id: "grants", ...grantsValue(grants) };
  },
});

function grantsValue(g: GrantsResponse | undefined): Omit<StateOf<typeof attributes>, "id"> {
  if (g === undefined) return { restricted: false, global: null, ...Object.fromEntries(GRANT_ENTITY_TYPES.map((t) => [t, null])) };
  return {
    restricted: true,
    global: { ...g.global },
    ...Object.fromEntries(GRANT_ENTITY_TYPES.map((t) => [t, g[t].map((e) => ({ id: e.id, label: e.label, permissions: e.permissions }))])),
  };
}
