/** SSH keys of a user's profile: the table, its record and queries. */
import type { Generated, Kysely, Selectable } from "kysely";
import { prepared, preparedInsertReserved } from "../../store/throughput";
import { Repository, countN, counted, type Counted, type Handle, type Slice } from "../../store/store";

export interface SshKeysTable {
  id: Generated<number>;
  user_id: number;
  label: string;
  ssh_key: string;
  created: string;
}

export interface SshKeyTables {
  ssh_keys: SshKeysTable;
}

export type SshKeyRecord = Selectable<SshKeysTable>;
export type NewSshKey = Omit<SshKeyRecord, "id">;

// The list and the create are hot paths (see `../../store/throughput/prepared.ts`). A key's id may be
// reserved ahead: nothing orders keys by creation beyond their list (see `../../store/throughput/id-blocks.ts`).
const insertSshKey = preparedInsertReserved<SshKeyTables>()("ssh_keys", ["user_id", "label", "ssh_key", "created"]);
const countSshKeys = prepared((db: Kysely<SshKeyTables>, userId: number) => db.selectFrom("ssh_keys").select(countN).where("user_id", "=", userId));
/**
 * A slice, each row with the size of the whole list: one statement, so one snapshot. The count
 * is a subquery that does not depend on the row (run once; a window count made SQLite sort).
 */
const sshKeySlice = prepared((db: Kysely<SshKeyTables>, userId: number, limit: number, offset: number) =>
  db
    .selectFrom("ssh_keys")
    .select(["id", "label", "ssh_key", "created"])
    .select((eb) => eb.selectFrom("ssh_keys").select(countN).where("user_id", "=", userId).as("total"))
    .where("user_id", "=", userId)
    .orderBy("id")
    .limit(limit)
    .offset(offset),
);

export class SshKeys extends Repository<SshKeyTables> {
  async insert(key: NewSshKey): Promise<SshKeyRecord> {
    const id = await insertSshKey(this.handle, key);
    return { id, user_id: key.user_id, label: key.label, ssh_key: key.ssh_key, created: key.created };
  }

  get(userId: number, id: number): Promise<SshKeyRecord | undefined> {
    return this.db.selectFrom("ssh_keys").selectAll().where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
  }

  /** Stays the same while no user's list of keys can change. */
  listMark(): string | undefined {
    return this.handle.tablesMark(["ssh_keys"]);
  }

  /** Ordered by id. */
  list(userId: number, slice: Slice): Promise<Counted<SshKeyRecord>> {
    return counted(
      slice,
      () => sshKeySlice(this.db, userId, slice.limit, slice.offset),
      async () => (await countSshKeys(this.db, userId))[0],
      // Field by field: spreading 100 rows (`{ ...r, user_id }`) took twice as long as reading them.
      (r) => ({ id: r.id, user_id: userId, label: r.label, ssh_key: r.ssh_key, created: r.created }),
    );
  }

  updateLabel(userId: number, id: number, label: string): Promise<SshKeyRecord | undefined> {
    return this.db.updateTable("ssh_keys").set({ label }).where("user_id", "=", userId).where("id", "=", id).returningAll().executeTakeFirst();
  }

  async delete(userId: number, id: number): Promise<boolean> {
    const result = await this.db.deleteFrom("ssh_keys").where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

export const sshKeyRepos = (handle: Handle<SshKeyTables>) => ({ sshKeys: new SshKeys(handle) });
export type SshKeyRepos = ReturnType<typeof sshKeyRepos>;
