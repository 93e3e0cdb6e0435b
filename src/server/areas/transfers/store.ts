/** Entity transfers between accounts: the table, its record and queries. */
import type { Generated, Selectable } from "kysely";
import { Repository, countN, counted, totalOver, type Counted, type Handle, type Slice } from "../../store/store";

export interface EntityTransfersTable {
  id: Generated<number>;
  token: string;
  account_id: number;
  receiver_account_id: number | null;
  status: string;
  /** JSON text: `{"computes": [...]}`. */
  entities: string;
  created: string;
  updated: string;
  expiry: string;
}

export interface TransferTables {
  entity_transfers: EntityTransfersTable;
}

export type TransferStatus = "accepted" | "canceled" | "completed" | "failed" | "pending" | "stale";

/**
 * `account_id` created it (the sender), `receiver_account_id` accepted it. `status` is the
 * stored one: a `pending` transfer past `expiry` is reported `stale`.
 */
export type TransferRecord = Omit<Selectable<EntityTransfersTable>, "status" | "entities"> & {
  status: TransferStatus;
  /** Entity ids by type; only `computes` is known. */
  entities: { computes: number[] };
};
export type NewTransfer = Omit<TransferRecord, "id" | "receiver_account_id">;

const transferRecord = (row: Selectable<EntityTransfersTable>): TransferRecord => ({
  ...row,
  status: row.status as TransferStatus,
  entities: JSON.parse(row.entities) as TransferRecord["entities"],
});

export class Transfers extends Repository<TransferTables> {
  async insert(t: NewTransfer): Promise<TransferRecord> {
    const row = await this.db
      .insertInto("entity_transfers")
      .values({ ...t, entities: JSON.stringify(t.entities), receiver_account_id: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    return transferRecord(row);
  }

  async get(token: string): Promise<TransferRecord | undefined> {
    const row = await this.db.selectFrom("entity_transfers").selectAll().where("token", "=", token).executeTakeFirst();
    return row && transferRecord(row);
  }

  private mine(accountId: number) {
    return this.db.selectFrom("entity_transfers").where((eb) => eb.or([eb("account_id", "=", accountId), eb("receiver_account_id", "=", accountId)]));
  }

  /** Transfers the account sent or received, ordered by id. */
  list(accountId: number, slice: Slice): Promise<Counted<TransferRecord>> {
    return counted(
      slice,
      () => this.mine(accountId).selectAll().select(totalOver()).orderBy("id").limit(slice.limit).offset(slice.offset).execute(),
      () => this.mine(accountId).select(countN).executeTakeFirst(),
      ({ total: _, ...row }) => transferRecord(row),
    );
  }

  /** Every transfer the account sent with status `pending` (for the "already in a transfer" check). */
  async pendingOf(accountId: number): Promise<TransferRecord[]> {
    const rows = await this.db.selectFrom("entity_transfers").selectAll().where("account_id", "=", accountId).where("status", "=", "pending").execute();
    return rows.map(transferRecord);
  }

  async update(id: number, patch: Partial<Pick<TransferRecord, "status" | "updated" | "receiver_account_id">>): Promise<void> {
    if (Object.keys(patch).length === 0) return;
    await this.db.updateTable("entity_transfers").set(patch).where("id", "=", id).execute();
  }
}

export const transferRepos = (handle: Handle<TransferTables>) => ({ transfers: new Transfers(handle) });
export type TransferRepos = ReturnType<typeof transferRepos>;
