/** data mgmt_ssh_key: one SSH key of the profile, by id or by label. */
import { listAll } from "../../client/paginate";
import type { ProviderContext } from "../config";
import { string } from "../framework/attributes";
import { attr, error } from "../framework/diagnostics";
import { defineDataSource } from "../framework/resource";
import { isUnknown } from "../framework/value";
import { idProblem } from "../resources/ids";
import { sshKeyCollection } from "../resources/ssh-key/collection";
import { sshKeyState } from "../resources/ssh-key/resource";
import { sshKeyAttributes } from "./ssh-key-shape";

export const sshKeyDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_ssh_key",
  description: "One SSH key of the user the provider acts for, by id or by label (a label must name exactly one key).",
  attributes: {
    ...sshKeyAttributes,
    id: string("optional_computed", "The key's numeric id. Set either id or label.", {
      validate: idProblem,
      conflictsWith: ["label"],
    }),
    label: string("optional_computed", "The key's label. Set either id or label."),
  },
  validate(config) {
    const given = (["id", "label"] as const).filter((n) => (config[n] ?? null) !== null || isUnknown(config[n]));
    return given.length === 0 ? [error("Missing id or label", "Set id or label to say which SSH key to read.", attr("id"))] : [];
  },
  async read({ ctx, signal }, config) {
    const id = config.id ?? undefined;
    if (id !== undefined) return sshKeyState(await sshKeyCollection.get(ctx.client, id, { signal }));
    const label = config.label!;
    const matches = (await listAll(sshKeyCollection.list(ctx.client, { signal }))).filter((k) => k.label === label);
    if (matches.length !== 1) {
      throw new Error(
        matches.length === 0
          ? `No SSH key has the label "${label}".`
          : `${matches.length} SSH keys have the label "${label}" (ids ${matches.map((k) => k.id).join(", ")}); read it by id, or use mgmt_ssh_keys.`,
      );
    }
    return sshKeyState(matches[0]!);
  },
});
