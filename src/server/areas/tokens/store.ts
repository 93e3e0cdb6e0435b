/** Personal access tokens and OAuth tokens: the table, its record and queries. */
import type { Generated, Kysely } from "kysely";
import { prepared } from "../../store/throughput";
import { Repository, countN, counted, totalOver, type Counted, type Handle, type Slice } from "../../store/store";
import type { TokenRecord } from "../../domain/records";

/** The table is the domain's `TokenRecord` (src/server/domain/records.ts), with the ids the database assigns. */
export type TokensTable = Omit<TokenRecord, "id" | "app_id"> & { id: Generated<number>; app_id: Generated<number | null> };

export interface TokenTables {
  tokens: TokensTable;
}

export type NewToken = Omit<TokenRecord, "id" | "revoked" | "app_id"> & { app_id?: number | null };

/** Every authenticated request looks its token up (see `../../store/throughput/prepared.ts`). */
const tokenByHash = prepared((db: Kysely<TokenTables>, hash: string) => db.selectFrom("tokens").selectAll().where("token_hash", "=", hash));

export class Tokens extends Repository<TokenTables> {
  insert(token: NewToken): Promise<TokenRecord> {
    return this.db.insertInto("tokens").values(token).returningAll().executeTakeFirstOrThrow();
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    const [row] = await tokenByHash(this.db, hash);
    return row;
  }

  /** A personal access token of the user (OAuth tokens are not looked up here). */
  get(userId: number, id: number): Promise<TokenRecord | undefined> {
    return this.db.selectFrom("tokens").selectAll().where("user_id", "=", userId).where("id", "=", id).where("app_id", "is", null).executeTakeFirst();
  }

  async revoke(id: number, at: string): Promise<void> {
    await this.db.updateTable("tokens").set({ revoked: at }).where("id", "=", id).where("revoked", "is", null).execute();
  }

  private active(userId: number, now: string) {
    return this.db
      .selectFrom("tokens")
      .where("user_id", "=", userId)
      .where("app_id", "is", null)
      .where("revoked", "is", null)
      .where((eb) => eb.or([eb("expiry", "is", null), eb("expiry", ">", now)]));
  }

  /** Personal access tokens of the user that are neither revoked nor expired at `now`, by id. */
  listActive(userId: number, now: string, slice: Slice): Promise<Counted<TokenRecord>> {
    return counted(
      slice,
      () => this.active(userId, now).selectAll().select(totalOver()).orderBy("id").limit(slice.limit).offset(slice.offset).execute(),
      () => this.active(userId, now).select(countN).executeTakeFirst(),
      ({ total: _, ...token }) => token,
    );
  }

  updateLabel(id: number, label: string): Promise<TokenRecord | undefined> {
    return this.db.updateTable("tokens").set({ label }).where("id", "=", id).returningAll().executeTakeFirst();
  }

  /** Revokes every token of the users (an account's, read in the same transaction). */
  async revokeOfUsers(userIds: readonly number[], at: string): Promise<void> {
    if (userIds.length === 0) return;
    await this.db.updateTable("tokens").set({ revoked: at }).where("revoked", "is", null).where("user_id", "in", userIds).execute();
  }

  async revokeByApp(appId: number, at: string): Promise<void> {
    await this.db.updateTable("tokens").set({ revoked: at }).where("app_id", "=", appId).where("revoked", "is", null).execute();
  }
}

export const tokenRepos = (handle: Handle<TokenTables>) => ({ tokens: new Tokens(handle) });
export type TokenRepos = ReturnType<typeof tokenRepos>;
