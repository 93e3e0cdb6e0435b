/**
 * Every managed resource type, one line each: its resource and, for a type whose objects the API
 * lists, its collection (both from the type's own folder, `resources/<type>/`). The provider serves
 * these resources, and `mgmt drift --unmanaged` searches these collections; batched reads, create-once
 * and the data sources take a collection from its folder. Adding a type is its folder and its line here
 * (`test/provider/managed-types.test.ts` holds the recipe in docs/architecture.md to this list).
 */
import type { ProviderContext } from "../config";
import type { ResourceDefinition } from "../framework/resource";
import type { Collection } from "./collection";
import { accountContactResource } from "./account-contact/resource";
import { oauthClientCollection } from "./oauth-client/collection";
import { oauthClientResource } from "./oauth-client/resource";
import { profileSettingsResource } from "./profile-settings/resource";
import { sshKeyCollection } from "./ssh-key/collection";
import { sshKeyResource } from "./ssh-key/resource";
import { tagCollection } from "./tag/collection";
import { tagResource } from "./tag/resource";
import { tokenCollection } from "./token/collection";
import { tokenResource } from "./token/resource";

export interface ManagedType {
  readonly resource: ResourceDefinition<ProviderContext>;
  /** Absent for a singleton: the object always exists, so "not in state" means "not managed here", never "left behind". */
  readonly collection?: Collection<unknown>;
}

export const MANAGED_TYPES: readonly ManagedType[] = [
  { resource: sshKeyResource, collection: sshKeyCollection },
  { resource: tokenResource, collection: tokenCollection },
  { resource: oauthClientResource, collection: oauthClientCollection },
  { resource: tagResource, collection: tagCollection },
  { resource: accountContactResource },
  { resource: profileSettingsResource },
];
