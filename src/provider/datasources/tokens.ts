/** data mgmt_tokens: the personal access tokens of the profile, without their values. */
import { int, string } from "../framework/attributes";
import { toRfc3339 } from "../timestamps";
import { rfc3339OrNull } from "./common";
import { instantAttribute } from "./filter";
import { defineListDataSource } from "./list";
import { tokenCollection } from "../resources/token/collection";

export const tokensDataSource = defineListDataSource({
  typeName: "mgmt_tokens",
  description: "The personal access tokens of the user the provider acts for. No token value, not even the prefix the API shows, is ever read into state.",
  path: tokenCollection.path,
  itemsName: "tokens",
  itemDescription: "The matching tokens.",
  item: {
    id: int("computed", "The token's id."),
    label: string("computed", "The token's label."),
    scopes: string("computed", "The OAuth scopes the token carries (`*` for all)."),
    created: instantAttribute("When the token was created."),
    expiry: instantAttribute("When the token expires", true),
  },
  fetch: tokenCollection.list,
  // Never `t.token`: the prefix the API shows still helps guess a secret, and state is not a vault.
  toItem: (t) => ({ id: t.id, label: t.label, scopes: t.scopes, created: toRfc3339(t.created), expiry: rfc3339OrNull(t.expiry) }),
});
