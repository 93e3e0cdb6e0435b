/**
 * The store as the domain sees it: records and the operations on them, no SQL. One
 * implementation runs on Kysely (`KyselyStore`), so SQLite today and Postgres later share it.
 * Lists take a slice (limit/offset) and have a matching count; page math is the domain's.
 */
export type AuthenticationType = "password" | "idp";
export type LishAuthMethod = "password_keys" | "keys_only" | "disabled";

export interface AccountRecord {
  id: number;
  euuid: string;
  active_since: string;
}
export type NewAccount = Omit<AccountRecord, "id">;

export interface UserRecord {
  id: number;
  account_id: number;
  username: string;
  email: string;
  restricted: boolean;
  authentication_type: AuthenticationType;
  authorized_keys: string[] | null;
  email_notifications: boolean;
  ip_whitelist_enabled: boolean;
  lish_auth_method: LishAuthMethod;
  timezone: string;
  two_factor_auth: boolean;
  verified_phone_number: string | null;
  referral_code: string;
  created: string;
}
export type NewUser = Omit<UserRecord, "id">;

export interface TokenRecord {
  id: number;
  user_id: number;
  label: string;
  scopes: string;
  token_hash: string;
  token_prefix: string;
  created: string;
  expiry: string | null;
  revoked: string | null;
}
export type NewToken = Omit<TokenRecord, "id" | "revoked">;

export interface SshKeyRecord {
  id: number;
  user_id: number;
  label: string;
  ssh_key: string;
  created: string;
}
export type NewSshKey = Omit<SshKeyRecord, "id">;

export interface Slice {
  limit: number;
  offset: number;
}

export interface AccountRepo {
  count(): Promise<number>;
  insert(account: NewAccount): Promise<AccountRecord>;
  get(id: number): Promise<AccountRecord | undefined>;
}

export interface UserRepo {
  insert(user: NewUser): Promise<UserRecord>;
  get(id: number): Promise<UserRecord | undefined>;
  /** The user with the lowest id: the one bootstrap created. */
  first(): Promise<UserRecord | undefined>;
}

export interface TokenRepo {
  insert(token: NewToken): Promise<TokenRecord>;
  findByHash(hash: string): Promise<TokenRecord | undefined>;
  get(userId: number, id: number): Promise<TokenRecord | undefined>;
  revoke(id: number, at: string): Promise<void>;
}

export interface SshKeyRepo {
  insert(key: NewSshKey): Promise<SshKeyRecord>;
  get(userId: number, id: number): Promise<SshKeyRecord | undefined>;
  count(userId: number): Promise<number>;
  /** Ordered by id. */
  list(userId: number, slice: Slice): Promise<SshKeyRecord[]>;
  updateLabel(userId: number, id: number, label: string): Promise<SshKeyRecord | undefined>;
  delete(userId: number, id: number): Promise<boolean>;
}

export interface Store {
  readonly accounts: AccountRepo;
  readonly users: UserRepo;
  readonly tokens: TokenRepo;
  readonly sshKeys: SshKeyRepo;
  /** Runs `fn` atomically; inside a transaction, runs it in that transaction. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
