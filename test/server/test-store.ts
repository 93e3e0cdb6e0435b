/**
 * Which store the server tests run on. The `default` jest project runs them on SQLite; the
 * `server-postgres` project (jest.config.js) runs the same files on a throwaway PostgreSQL
 * cluster started by its global setup, with one fresh database per server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, dropDatabase } from "../../src/server/store/postgres";
import type { Store } from "../../src/server/areas";
import type { NewUser } from "../../src/server/areas/profile/store";
import type { UserRecord } from "../../src/server/domain/records";
import pg from "pg";

/** Set by `test/server/postgres/use-postgres.ts` in the `server-postgres` project only. */
export const onPostgres = (): boolean => process.env.MGMT_TEST_STORE === "postgres";

/** The cluster of the `server-postgres` project (set by its global setup). */
export function clusterUrl(): string {
  const url = process.env.MGMT_TEST_PG_URL;
  if (!url) throw new Error("MGMT_TEST_PG_URL is not set: run the server-postgres jest project (its global setup starts the cluster)");
  return url;
}

export interface TestDb {
  /** What `startServer({ db })` takes: a SQLite file path or a postgres:// URL. */
  db: string;
  /** Deletes the file or drops the database. Safe to call more than once. */
  cleanup(): Promise<void>;
}

let counter = 0;

/** A new, empty database on the test cluster. */
export async function freshPostgresDb(): Promise<TestDb> {
  const admin = clusterUrl();
  const name = `mgmt_t_${process.pid}_${++counter}`;
  const db = await createDatabase(admin, name);
  let dropped: Promise<void> | undefined;
  return { db, cleanup: () => (dropped ??= dropDatabase(admin, name)) };
}

/**
 * A pool on a test database, as the Postgres store makes its own: with an error listener. The database's
 * cleanup drops it `with (force)`, which terminates a connection the pool's end() has let go of but not yet
 * closed (pg-pool's end() does not wait for that); unheard, that termination would fail the test file.
 */
export function testPool(testDb: TestDb, max = 1): pg.Pool {
  const pool = new pg.Pool({ connectionString: testDb.db, max });
  pool.on("error", () => {});
  return pool;
}

/** A new, empty, persistent store of the kind under test: a SQLite file, or a Postgres database. */
export async function freshDb(): Promise<TestDb> {
  if (onPostgres()) return freshPostgresDb();
  const dir = mkdtempSync(join(tmpdir(), "mgmt-store-"));
  return { db: join(dir, "mgmt.sqlite"), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** One account and one user in it, written straight to a store (no bootstrap, no API rules); `fields` replace the user's defaults. */
export async function seedUser(store: Store, fields: Partial<NewUser> = {}): Promise<UserRecord> {
  const account = await store.accounts.insert({ euuid: "E", active_since: "2025-01-01T00:00:00" });
  return store.users.insert({
    account_id: account.id,
    username: "u",
    email: "u@example.com",
    restricted: false,
    authentication_type: "password",
    authorized_keys: null,
    email_notifications: true,
    ip_whitelist_enabled: false,
    lish_auth_method: "keys_only",
    timezone: "UTC",
    two_factor_auth: false,
    verified_phone_number: null,
    referral_code: "r",
    created: "2025-01-01T00:00:00",
    ...fields,
  });
}

/** How many SSH keys the user has, as the list reports it. */
export const sshKeyCount = async (store: Pick<Store, "sshKeys">, userId: number): Promise<number> =>
  (await store.sshKeys.list(userId, { limit: 1, offset: 0 })).total;
