/**
 * SSH keys of the acting user. Rules: only the label changes after creation (an `ssh_key`
 * sent with an update must name the stored key, so a read-modify-write round trip works);
 * deleting removes only the profile's record of the key. Inputs are the contract schemas'
 * output: the key has already been parsed and checked (`SshPublicKeyText`), the label's
 * length too.
 */
import type { z } from "zod";
import { sameSshKey, type Page, type PageQuery, type SshKeyCreate, type SshKeyUpdateBody } from "../../../contract";
import { wireNow, type Actor, type Deps } from "../../domain/context";
import { invalid, notFound } from "../../domain/errors";
import { pageOf } from "../../domain/paging";
import { entities } from "../../domain/event-entities";
import { noteEvent } from "../events";
import type { EventRepos } from "../events/store";
import type { SshKeyRecord, SshKeyRepos } from "./store";

export type SshKeyInput = z.output<typeof SshKeyCreate>;
export type SshKeyChange = z.output<typeof SshKeyUpdateBody>;

export class SshKeyService {
  constructor(private readonly deps: Deps<SshKeyRepos & EventRepos>) {}

  /** Stays the same while no user's list of keys can change (see `Handle.tablesMark`). */
  listMark(): string | undefined {
    return this.deps.store.sshKeys.listMark();
  }

  /** One read, no transaction: the store answers the slice and the total as of one moment. */
  list(actor: Actor, query: PageQuery): Promise<Page<SshKeyRecord>> {
    return pageOf(query, (slice) => this.deps.store.sshKeys.list(actor.user.id, slice));
  }

  /** The key and its event commit together: a feed never shows a key that is not there, nor misses one that is. */
  create(actor: Actor, input: SshKeyInput): Promise<SshKeyRecord> {
    return this.deps.store.transaction(async (tx) => {
      const key = await tx.sshKeys.insert({
        user_id: actor.user.id,
        label: input.label ?? "",
        ssh_key: input.ssh_key.trim(),
        created: wireNow(this.deps.clock),
      });
      await noteEvent(this.deps, { actor, action: "user_ssh_key_add", entity: entities.sshKey(key.id, key.label) }, tx);
      return key;
    });
  }

  async get(actor: Actor, id: number): Promise<SshKeyRecord> {
    const key = await this.deps.store.sshKeys.get(actor.user.id, id);
    if (key === undefined) throw notFound();
    return key;
  }

  async update(actor: Actor, id: number, change: SshKeyChange): Promise<SshKeyRecord> {
    return this.deps.store.transaction(async (tx) => {
      const key = await tx.sshKeys.get(actor.user.id, id);
      if (key === undefined) throw notFound();
      if (change.ssh_key !== undefined && !sameSshKey(change.ssh_key, key.ssh_key)) {
        throw invalid("ssh_key", "Only the label of an SSH key can be updated; delete it and add the new key instead");
      }
      const updated = await tx.sshKeys.updateLabel(actor.user.id, id, change.label);
      if (updated === undefined) throw notFound();
      await noteEvent(this.deps, { actor, action: "user_ssh_key_update", entity: entities.sshKey(updated.id, updated.label) }, tx);
      return updated;
    });
  }

  async delete(actor: Actor, id: number): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const key = await tx.sshKeys.get(actor.user.id, id);
      if (key === undefined || !(await tx.sshKeys.delete(actor.user.id, id))) throw notFound();
      await noteEvent(this.deps, { actor, action: "user_ssh_key_delete", entity: entities.sshKey(id, key.label) }, tx);
    });
  }
}
