/** mgmt_ssh_key: an SSH public key on the acting user's profile. */
import { isNotFound } from "../../client";
import { SSH_KEY_LABEL_MAX, parseSshPublicKey, sameSshKey, type SshKey } from "../../contract";
import type { ProviderContext } from "../config";
import { knownString, lengthBetween, requireString } from "../framework/attributes";
import { attr, error, type Diagnostic } from "../framework/diagnostics";
import type { ResourceDefinition } from "../framework/resource";
import type { ObjectValue, TfValue } from "../framework/value";
import { toRfc3339 } from "../timestamps";
import { parseId } from "./ids";

const toState = (key: SshKey): ObjectValue => ({
  id: String(key.id),
  label: key.label,
  ssh_key: key.ssh_key,
  created: toRfc3339(key.created),
});

export const sshKeyResource: ResourceDefinition<ProviderContext> = {
  typeName: "mgmt_ssh_key",
  schema: {
    version: 0,
    block: {
      description: "An SSH public key on the profile of the user the provider acts as. Instances deployed with it get it as an authorized key; deleting it here does not remove it from existing instances.",
      description_kind: "plain",
      attributes: {
        id: { type: "string", computed: true, description: "The key's id.", description_kind: "plain" },
        label: {
          type: "string",
          required: true,
          description: `A name for the key, 1 to ${SSH_KEY_LABEL_MAX} characters. Changed in place.`,
          description_kind: "plain",
        },
        ssh_key: {
          type: "string",
          required: true,
          description: "The public key in OpenSSH format (`<algorithm> <base64> [comment]`). Changing the key replaces the resource; a different comment or spacing around the same key is not a change.",
          description_kind: "plain",
        },
        created: { type: "string", computed: true, description: "When the key was added (RFC 3339, UTC).", description_kind: "plain" },
      },
    },
  },

  planRules: {
    ssh_key: { requiresReplace: true, semanticEquals: (prior: TfValue, config: TfValue) => typeof prior === "string" && typeof config === "string" && sameSshKey(prior, config) },
  },

  validate(config) {
    const diagnostics: Diagnostic[] = lengthBetween(config, "label", 1, SSH_KEY_LABEL_MAX);
    const key = knownString(config, "ssh_key");
    if (key !== undefined) {
      const parsed = parseSshPublicKey(key);
      if (!parsed.ok) diagnostics.push(error("Invalid ssh_key", parsed.reason, attr("ssh_key")));
    }
    return diagnostics;
  },

  async create({ client }, planned) {
    return toState(await client.createSshKey({ label: requireString(planned, "label"), ssh_key: requireString(planned, "ssh_key") }));
  },

  async read({ client }, state) {
    try {
      return toState(await client.getSshKey(parseId(requireString(state, "id"))));
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  },

  async update({ client }, prior, planned) {
    return toState(await client.updateSshKey(parseId(requireString(prior, "id")), { label: requireString(planned, "label") }));
  },

  async delete({ client }, state) {
    try {
      await client.deleteSshKey(parseId(requireString(state, "id")));
    } catch (err) {
      // Already gone is what delete wanted.
      if (!isNotFound(err)) throw err;
    }
  },

  async importState({ client }, id) {
    try {
      return toState(await client.getSshKey(parseId(id)));
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  },
};
