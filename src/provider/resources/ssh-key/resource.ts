/** mgmt_ssh_key: an SSH public key on the acting user's profile. */
import type { SshKey } from "../../../contract";
import { SSH_KEY_LABEL_MAX, lengthBetween, secretInName, secretInPublicKey, sshPublicKeyText } from "../../../contract/field-rules";
import { sameSshKey } from "../../../contract/sshkey-format";
import type { ProviderContext } from "../../config";
import { string } from "../../framework/attributes";
import { defineResource } from "../../framework/resource";
import type { StateOf } from "../../framework/value-types";
import { toRfc3339 } from "../../timestamps";
import { orNullIfGone } from "../../../client/errors";
import { known } from "../../framework/value";
import { adoptedWarning, parseId, stateId } from "../ids";
import { createSshKeyOnce, sshKeyCollection, sshKeyTwins } from "./collection";

const attributes = {
  id: string("computed", "The key's id.", { keepPrior: true }),
  label: string("required", `A name for the key, 1 to ${SSH_KEY_LABEL_MAX} characters. Changed in place.`, {
    secret: secretInName,
    validate: lengthBetween(1, SSH_KEY_LABEL_MAX),
  }),
  ssh_key: string(
    "required",
    "The public key in OpenSSH format (`<algorithm> <base64> [comment]`). A different comment or spacing around the same key is not a change.",
    { requiresReplace: true, semanticEquals: sameSshKey, secret: secretInPublicKey, validate: sshPublicKeyText },
  ),
  created: string("computed", "When the key was added (RFC 3339, UTC).", { keepPrior: true }),
};

/** An SSH key as state holds it; the data sources show keys the same way. */
export const sshKeyState = (key: SshKey): StateOf<typeof attributes> => ({
  id: String(key.id),
  label: key.label,
  ssh_key: key.ssh_key,
  created: toRfc3339(key.created),
});

export const sshKeyResource = defineResource<ProviderContext>()({
  typeName: "mgmt_ssh_key",
  description:
    "An SSH public key on the profile of the user the provider acts as. Instances deployed with it get it as an authorized key; deleting it here does not remove it from existing instances.",
  importId: { description: "the key's numeric id", example: "12345" },
  attributes,

  async create({ ctx, warn }, planned) {
    const made = await createSshKeyOnce(ctx.client, { label: planned.label, ssh_key: planned.ssh_key });
    if (made.adopted) warn(...adoptedWarning("mgmt_ssh_key", String(made.value.id)));
    return sshKeyState(made.value);
  },

  async read({ ctx }, state) {
    const key = await ctx.reads.of(sshKeyCollection).read(String(parseId(stateId(state))));
    return key === null ? null : sshKeyState(key);
  },

  async update({ ctx }, prior, planned) {
    return sshKeyState(await ctx.client.updateSshKey(parseId(stateId(prior)), { label: planned.label }));
  },

  async delete({ ctx }, state) {
    await orNullIfGone(() => ctx.client.deleteSshKey(parseId(stateId(state))));
  },

  async importState({ ctx }, id) {
    return orNullIfGone(async () => sshKeyState(await sshKeyCollection.get(ctx.client, String(parseId(id)))));
  },

  async twins({ ctx }, planned) {
    const label = known(planned.label);
    const key = known(planned.ssh_key);
    const keys = label === undefined || key === undefined ? null : await ctx.reads.of(sshKeyCollection).all();
    return keys ? sshKeyTwins(keys, label!, key!) : [];
  },
});
