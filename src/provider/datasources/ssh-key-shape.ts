/** An SSH key as `mgmt_ssh_key` and `mgmt_ssh_keys` show it (the attributes of the resource; values from its `sshKeyState`). */
import { string } from "../framework/attributes";
import type { Attributes } from "../framework/value-types";
import { instantAttribute } from "./filter";

export const sshKeyAttributes = {
  id: string("computed", "The key's numeric id, as a string (as the mgmt_ssh_key resource has it)."),
  label: string("computed", "The key's label."),
  ssh_key: string("computed", "The public key."),
  created: instantAttribute("When the key was added."),
} satisfies Attributes;
