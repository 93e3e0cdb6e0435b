/** data mgmt_oauth_clients: the account's OAuth clients, without their secrets. */
import { bool, string } from "../framework/attributes";
import { oauthClientFields } from "../resources/oauth-client";
import { defineListDataSource } from "./list";

export const oauthClientsDataSource = defineListDataSource({
  typeName: "mgmt_oauth_clients",
  description: "The OAuth clients registered on the account, filtered by the API where it can. Secrets are never read into state.",
  path: "/account/oauth-clients",
  itemsName: "oauth_clients",
  itemDescription: "The matching OAuth clients.",
  item: {
    id: string("computed", "The public client id."),
    label: string("computed", "Name shown to users asked to grant access."),
    public: bool("computed", "Whether the client is public (no secret in its authentication workflow)."),
    redirect_uri: string("computed", "Where a successful login redirects with an exchange code."),
    status: string("computed", "active, disabled or suspended."),
    thumbnail_url: string("computed", "Address of the client's thumbnail; null when none."),
  },
  fetch: (client, o) => client.listOAuthClients(o),
  toItem: oauthClientFields,
});
