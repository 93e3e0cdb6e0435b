/** SSH keys as a collection: listed and fetched by numeric id, created once, and their twins. */
import type { SshKey, SshKeyCreate } from "../../../contract";
import { sameSshKey } from "../../../contract/sshkey-format";
import type { MgmtClient } from "../../../client";
import { createOnce, createdSince, matching, type Created } from "../../../client/create-once";
import type { Twin } from "../../framework/resource";
import type { FetchableCollection } from "../collection";

export const sshKeyCollection: FetchableCollection<SshKey> = {
  typeName: "mgmt_ssh_key",
  title: "SSH keys",
  path: "/profile/sshkeys",
  list: (client, o) => client.listSshKeys(o),
  get: (client, key, o) => client.getSshKey(Number(key), o),
  key: (k) => String(k.id),
  label: (k) => k.label,
  stateKey: "id",
};

/** A key found after a lost answer is the one asked for when its label, key and creation time match. */
export function createSshKeyOnce(client: MgmtClient, body: SshKeyCreate): Promise<Created<SshKey>> {
  const c = sshKeyCollection;
  return createOnce(client, c.typeName, {
    create: () => client.createSshKey(body),
    candidates: (since, call) =>
      matching(c.list(client, call), (k) => k.label === (body.label ?? "") && sameSshKey(k.ssh_key, body.ssh_key) && createdSince(k.created, since)),
    key: c.key,
  });
}

export function sshKeyTwins(keys: readonly SshKey[], label: string, sshKey: string): Twin[] {
  return keys
    .filter((k) => k.label === label && sameSshKey(k.ssh_key, sshKey))
    .map((k) => ({ id: String(k.id), alike: `an SSH key with the same label and public key` }));
}
