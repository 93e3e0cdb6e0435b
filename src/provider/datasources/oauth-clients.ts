/** data mgmt_oauth_clients: the account's OAuth clients, without their secrets. */
import { bool, string } from "../framework/attributes";
import { oauthClientCollection } from "../resources/oauth-client/collection";
import { OAUTH_CLIENT_ABOUT, oauthClientFields } from "../resources/oauth-client/resource";
import { defineListDataSource } from "./list";

export const oauthClientsDataSource = defineListDataSource({
  typeName: "mgmt_oauth_clients",
  description: "The OAuth clients registered on the account, filtered by the API where it can. Secrets are never read into state.",
  path: oauthClientCollection.path,
  itemsName: "oauth_clients",
  itemDescription: "The matching OAuth clients.",
  item: {
    id: string("computed", OAUTH_CLIENT_ABOUT.id),
    label: string("computed", OAUTH_CLIENT_ABOUT.label),
    public: bool("computed", OAUTH_CLIENT_ABOUT.public),
    redirect_uri: string("computed", OAUTH_CLIENT_ABOUT.redirect_uri),
    status: string("computed", OAUTH_CLIENT_ABOUT.status),
    thumbnail_url: string("computed", OAUTH_CLIENT_ABOUT.thumbnail_url),
  },
  fetch: oauthClientCollection.list,
  toItem: oauthClientFields,
});
