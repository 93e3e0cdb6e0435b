/**
 * The store over Kysely: every query the domain needs, written once for any dialect whose
 * Kysely instance is handed in. Conversions between portable column types (0/1, JSON text)
 * and record types happen here and nowhere else.
 */
import type { Kysely } from "kysely";
import type { Database, SshKeyRow, TokenRow, UserRow } from "./tables";
import type {
  AccountRecord,
  AccountRepo,
  AuthenticationType,
  LishAuthMethod,
  NewAccount,
  NewSshKey,
  NewToken,
  NewUser,
  Slice,
  SshKeyRecord,
  SshKeyRepo,
  Store,
  TokenRecord,
  TokenRepo,
  UserRecord,
  UserRepo,
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
  };
}
const tokenRecord = (row: TokenRow): TokenRecord => ({ ...row });
const sshKeyRecord = (row: SshKeyRow): SshKeyRecord => ({ ...row });

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
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return userRecord(row);
  }

  async get(id: number): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
    return row && userRecord(row);
  }

  async first(): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom("users").selectAll().orderBy("id").limit(1).executeTakeFirst();
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
    const row = await this.db.selectFrom("tokens").selectAll().where("token_hash", "=", hash).executeTakeFirst();
    return row && tokenRecord(row);
  }

  async get(userId: number, id: number): Promise<TokenRecord | undefined> {
    const row = await this.db.selectFrom("tokens").selectAll().where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
    return row && tokenRecord(row);
  }

  async revoke(id: number, at: string): Promise<void> {
    await this.db.updateTable("tokens").set({ revoked: at }).where("id", "=", id).where("revoked", "is", null).execute();
  }
}

class SshKeys implements SshKeyRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(key: NewSshKey): Promise<SshKeyRecord> {
    return sshKeyRecord(await this.db.insertInto("ssh_keys").values(key).returningAll().executeTakeFirstOrThrow());
  }

  async get(userId: number, id: number): Promise<SshKeyRecord | undefined> {
    const row = await this.db.selectFrom("ssh_keys").selectAll().where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
    return row && sshKeyRecord(row);
  }

  async count(userId: number): Promise<number> {
    const row = await this.db
      .selectFrom("ssh_keys")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return toCount(row?.n);
  }

  async list(userId: number, slice: Slice): Promise<SshKeyRecord[]> {
    const rows = await this.db
      .selectFrom("ssh_keys")
      .selectAll()
      .where("user_id", "=", userId)
      .orderBy("id")
      .limit(slice.limit)
      .offset(slice.offset)
      .execute();
    return rows.map(sshKeyRecord);
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

export class KyselyStore implements Store {
  readonly accounts: AccountRepo;
  readonly users: UserRepo;
  readonly tokens: TokenRepo;
  readonly sshKeys: SshKeyRepo;

  /** `onClose` releases what the opener acquired (the driver's connection or pool). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly onClose: () => Promise<void> = () => db.destroy(),
  ) {
    this.accounts = new Accounts(db);
    this.users = new Users(db);
    this.tokens = new Tokens(db);
    this.sshKeys = new SshKeys(db);
  }

  async transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return fn(this);
    return this.db.transaction().execute((trx) => fn(new KyselyStore(trx, async () => {})));
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
