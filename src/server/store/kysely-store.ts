/**
 * The store over Kysely: every query the domain needs, written once for any dialect whose
 * Kysely instance is handed in. Conversions between portable column types (0/1, JSON text)
 * and record types happen here and nowhere else.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Kysely } from "kysely";
import { profileAreaRepos } from "./kysely-profile";
import { oauthTagsEventsRepos } from "./kysely-oauth-tags-events";
import { KyselyBillingRepo } from "./kysely-billing";
import { wipeDatabase } from "./wipe";
import { changeMark, dumpDatabase, tablesOf, type Dump, type TableColumns } from "./dump";
import { prepared, preparedInsert } from "./prepared";
import type { Database, SshKeyRow, TokenRow, UserRow } from "./tables";
import type {
  AccountRecord,
  AccountRepo,
  AuthenticationType,
  Counted,
  LishAuthMethod,
  NewAccount,
  NewSshKey,
  NewToken,
  NewUser,
  Slice,
  SshKeyRecord,
  SshKeyRepo,
  Store,
  TableName,
  TokenRecord,
  TokenRepo,
  UserPatch,
  UserRecord,
  UserRepo,
  UserType,
} from "./store";

/** Counts come back as numbers from SQLite and as strings (bigint) from Postgres. */
const toCount = (value: string | number | bigint | undefined): number => Number(value ?? 0);
const bool = (value: number): boolean => value !== 0;
const int = (value: boolean): number => (value ? 1 : 0);

function userRecord(row: UserRow): UserRecord {
  return {
    ...row,
    restricted: bool(row.restricted),
    authentication_type: row.authentication_type as AuthenticationType,
    authorized_keys: row.authorized_keys === null ? null : (JSON.parse(row.authorized_keys) as string[]),
    email_notifications: bool(row.email_notifications),
    ip_whitelist_enabled: bool(row.ip_whitelist_enabled),
    lish_auth_method: row.lish_auth_method as LishAuthMethod,
    two_factor_auth: bool(row.two_factor_auth),
    user_type: row.user_type as UserType,
    sms_opt_in: bool(row.sms_opt_in),
  };
}
const tokenRecord = (row: TokenRow): TokenRecord => ({ ...row });

/** A patch in column types: booleans as 0/1, lists as JSON text; absent fields stay absent. */
function userPatchRow(patch: UserPatch): Record<string, string | number | null> {
  const row: Record<string, string | number | null> = {};
  for (const [key, value] of Object.entries(patch) as Array<[string, unknown]>) {
    if (value === undefined) continue;
    if (typeof value === "boolean") row[key] = int(value);
    else if (Array.isArray(value)) row[key] = JSON.stringify(value);
    else row[key] = value as string | null;
  }
  return row;
}
const sshKeyRecord = (row: SshKeyRow): SshKeyRecord => ({ id: row.id, user_id: row.user_id, label: row.label, ssh_key: row.ssh_key, created: row.created });

// The queries of every authenticated request and of the SSH key list and create (see `./prepared.ts`).
const userById = prepared((db, id: number) => db.selectFrom("users").selectAll().where("id", "=", id));
const tokenByHash = prepared((db, hash: string) => db.selectFrom("tokens").selectAll().where("token_hash", "=", hash));
const insertSshKey = preparedInsert("ssh_keys", ["user_id", "label", "ssh_key", "created"]);
const countSshKeys = prepared((db, userId: number) =>
  db
    .selectFrom("ssh_keys")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("user_id", "=", userId),
);
/**
 * A slice, each row with the size of the whole list: one statement, so one snapshot. The count
 * is a subquery that does not depend on the row (run once; a window count made SQLite sort).
 */
const sshKeySlice = prepared((db, userId: number, limit: number, offset: number) =>
  db
    .selectFrom("ssh_keys")
    .select(["id", "label", "ssh_key", "created"])
    .select((eb) =>
      eb
        .selectFrom("ssh_keys")
        .select(eb.fn.countAll<number | string>().as("n"))
        .where("user_id", "=", userId)
        .as("total"),
    )
    .where("user_id", "=", userId)
    .orderBy("id")
    .limit(limit)
    .offset(offset),
);

class Accounts implements AccountRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async count(): Promise<number> {
    const row = await this.db.selectFrom("accounts").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
    return toCount(row?.n);
  }

  async insert(account: NewAccount): Promise<AccountRecord> {
    return this.db.insertInto("accounts").values(account).returningAll().executeTakeFirstOrThrow();
  }

  async get(id: number): Promise<AccountRecord | undefined> {
    return this.db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
  }
}

class Users implements UserRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(user: NewUser): Promise<UserRecord> {
    const row = await this.db
      .insertInto("users")
      .values({
        ...user,
        restricted: int(user.restricted),
        authorized_keys: user.authorized_keys === null ? null : JSON.stringify(user.authorized_keys),
        email_notifications: int(user.email_notifications),
        ip_whitelist_enabled: int(user.ip_whitelist_enabled),
        two_factor_auth: int(user.two_factor_auth),
        user_type: user.user_type ?? "default",
        sms_opt_in: int(user.sms_opt_in ?? false),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return userRecord(row);
  }

  async get(id: number): Promise<UserRecord | undefined> {
    const [row] = await userById(this.db, id);
    return row && userRecord(row);
  }

  async first(): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom("users").selectAll().orderBy("id").limit(1).executeTakeFirst();
    return row && userRecord(row);
  }

  async update(id: number, patch: UserPatch): Promise<UserRecord | undefined> {
    const values = userPatchRow(patch);
    if (Object.keys(values).length === 0) return this.get(id);
    const row = await this.db.updateTable("users").set(values).where("id", "=", id).returningAll().executeTakeFirst();
    return row && userRecord(row);
  }
}

class Tokens implements TokenRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(token: NewToken): Promise<TokenRecord> {
    const row = await this.db.insertInto("tokens").values(token).returningAll().executeTakeFirstOrThrow();
    return tokenRecord(row);
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    const [row] = await tokenByHash(this.db, hash);
    return row && tokenRecord(row);
  }

  async get(userId: number, id: number): Promise<TokenRecord | undefined> {
    const row = await this.db.selectFrom("tokens").selectAll().where("user_id", "=", userId).where("id", "=", id).where("app_id", "is", null).executeTakeFirst();
    return row && tokenRecord(row);
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

  async countActive(userId: number, now: string): Promise<number> {
    const row = await this.active(userId, now)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  async listActive(userId: number, now: string, slice: Slice): Promise<TokenRecord[]> {
    const rows = await this.active(userId, now).selectAll().orderBy("id").limit(slice.limit).offset(slice.offset).execute();
    return rows.map(tokenRecord);
  }

  async updateLabel(id: number, label: string): Promise<TokenRecord | undefined> {
    const row = await this.db.updateTable("tokens").set({ label }).where("id", "=", id).returningAll().executeTakeFirst();
    return row && tokenRecord(row);
  }

  async revokeByApp(appId: number, at: string): Promise<void> {
    await this.db.updateTable("tokens").set({ revoked: at }).where("app_id", "=", appId).where("revoked", "is", null).execute();
  }
}

class SshKeys implements SshKeyRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(key: NewSshKey): Promise<SshKeyRecord> {
    const id = await insertSshKey(this.db, key);
    return { id, user_id: key.user_id, label: key.label, ssh_key: key.ssh_key, created: key.created };
  }

  async get(userId: number, id: number): Promise<SshKeyRecord | undefined> {
    const row = await this.db.selectFrom("ssh_keys").selectAll().where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
    return row && sshKeyRecord(row);
  }

  async count(userId: number): Promise<number> {
    const [row] = await countSshKeys(this.db, userId);
    return toCount(row?.n);
  }

  async list(userId: number, slice: Slice): Promise<Counted<SshKeyRecord>> {
    for (;;) {
      const rows = await sshKeySlice(this.db, userId, slice.limit, slice.offset);
      if (rows.length > 0) {
        // Field by field: spreading 100 rows (`{ ...r, user_id }`) took twice as long as reading them.
        const keys = rows.map((r) => ({ id: r.id, user_id: userId, label: r.label, ssh_key: r.ssh_key, created: r.created }));
        return { rows: keys, total: toCount(rows[0]!.total ?? 0) };
      }
      // An empty slice carries no count. Past the end, the count says so; if keys arrived in
      // between, the slice is read again, so the answer is still of one moment.
      const total = await this.count(userId);
      if (total <= slice.offset) return { rows: [], total };
    }
  }

  async updateLabel(userId: number, id: number, label: string): Promise<SshKeyRecord | undefined> {
    const row = await this.db
      .updateTable("ssh_keys")
      .set({ label })
      .where("user_id", "=", userId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
    return row && sshKeyRecord(row);
  }

  async delete(userId: number, id: number): Promise<boolean> {
    const result = await this.db.deleteFrom("ssh_keys").where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

/** The transaction open in the current async context, with the root handle it belongs to. */
const openTransaction = new AsyncLocalStorage<{ root: Kysely<Database>; trx: Kysely<Database> }>();

/** True while `fn` of a `transaction()` on `root` is running in this async context. */
export const inTransaction = (root: Kysely<Database>): boolean => openTransaction.getStore()?.root === root;

/** Runs `fn` with `trx` as the open transaction of `root` (see `ambient`). */
export const withOpenTransaction = <T>(root: Kysely<Database>, trx: Kysely<Database>, fn: () => Promise<T>): Promise<T> => openTransaction.run({ root, trx }, fn);

/**
 * The root handle as the repositories hold it: while a transaction is open in the current
 * async context, every query goes to that transaction, even through the outer store. On
 * SQLite (one connection) a query on the outer handle would otherwise wait forever for the
 * transaction that holds the connection; on Postgres it would run outside the transaction.
 * So domain code cannot deadlock or escape a transaction by reaching for `deps.store`.
 */
function ambient(root: Kysely<Database>): Kysely<Database> {
  return new Proxy(root, {
    get(target, prop) {
      const open = openTransaction.getStore();
      const handle = open && open.root === target ? open.trx : target;
      const value: unknown = Reflect.get(handle, prop, handle);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(handle) : value;
    },
  });
}

export class KyselyStore implements Store {
  readonly accounts: AccountRepo;
  readonly users: UserRepo;
  readonly tokens: TokenRepo;
  readonly sshKeys: SshKeyRepo;
  readonly oauthClients: Store["oauthClients"];
  readonly oauthApps: Store["oauthApps"];
  readonly devices: Store["devices"];
  readonly logins: Store["logins"];
  readonly phoneCodes: Store["phoneCodes"];
  readonly securityAnswers: Store["securityAnswers"];
  readonly tfaSecrets: Store["tfaSecrets"];
  readonly preferences: Store["preferences"];
  readonly grants: Store["grants"];
  readonly events: Store["events"];
  readonly thumbnails: Store["thumbnails"];
  readonly objects: Store["objects"];
  readonly tags: Store["tags"];
  readonly transfers: Store["transfers"];
  readonly billing: Store["billing"];

  /** `onClose` releases what the opener acquired (the driver's connection or pool). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly onClose: () => Promise<void> = () => db.destroy(),
  ) {
    if (!db.isTransaction) db = ambient(db);
    this.accounts = new Accounts(db);
    this.users = new Users(db);
    this.tokens = new Tokens(db);
    this.sshKeys = new SshKeys(db);
    ({
      oauthClients: this.oauthClients,
      oauthApps: this.oauthApps,
      devices: this.devices,
      logins: this.logins,
      phoneCodes: this.phoneCodes,
      securityAnswers: this.securityAnswers,
      tfaSecrets: this.tfaSecrets,
      preferences: this.preferences,
      grants: this.grants,
    } = profileAreaRepos(db));
    ({ events: this.events, thumbnails: this.thumbnails, objects: this.objects, tags: this.tags, transfers: this.transfers } = oauthTagsEventsRepos(db));
    this.billing = new KyselyBillingRepo(db);
  }

  private tables: Promise<TableColumns[]> | undefined;

  /** Every row of every table (see `./dump.ts`); the table list is read once, after migrations. */
  dump(): Promise<Dump> {
    const db = this.db as unknown as Kysely<unknown>;
    this.tables ??= tablesOf(db);
    return this.tables.then((tables) => dumpDatabase(db, tables));
  }

  /** Changes whenever a transaction may have written (see `./dump.ts`). */
  changeMark(): Promise<string> {
    return changeMark(this.db as unknown as Kysely<unknown>);
  }

  /** Not known in general: several processes may share the database (see `./sqlite.ts`). */
  tablesMark(_tables: readonly TableName[]): string | undefined {
    return undefined;
  }

  /** Empties every table (see `./wipe.ts`); not inside a transaction. */
  wipe(): Promise<void> {
    return wipeDatabase(this.db as unknown as Kysely<unknown>);
  }

  async transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    if (this.db.isTransaction || inTransaction(this.db)) return fn(this);
    return this.db.transaction().execute((trx) => withOpenTransaction(this.db, trx, () => fn(new KyselyStore(trx, async () => {}))));
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
