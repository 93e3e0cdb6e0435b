/** data mgmt_ssh_keys: every SSH key of the profile (to find the ones no configuration manages). */
import { defineListDataSource } from "./list";
import { sshKeyCollection } from "../resources/ssh-key/collection";
import { sshKeyState } from "../resources/ssh-key/resource";
import { sshKeyAttributes } from "./ssh-key-shape";

export const sshKeysDataSource = defineListDataSource({
  typeName: "mgmt_ssh_keys",
  description: "The SSH keys of the user the provider acts for. The API filters none of their fields: filters apply after paging.",
  path: sshKeyCollection.path,
  itemsName: "ssh_keys",
  itemDescription: "The matching SSH keys.",
  item: sshKeyAttributes,
  fetch: sshKeyCollection.list,
  toItem: sshKeyState,
});
