/** @tier postgres */
/**
 * The Postgres store's own guarantees, on the server-postgres project's cluster: migrations
 * under an advisory lock, one bootstrap when servers start together, read-modify-write
 * transactions that never lose an update, and a newer build's database refused.
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import { cryptoSecrets, ManualClock } from "../../../src/server";
import { createDomain, repos } from "../../../src/server/areas";
import { openPostgresStore } from "../../../src/server/store/postgres";
import { startTestServer } from "../helpers";
import { freshPostgresDb, seedUser, type TestDb, sshKeyCount, testPool } from "../test-store";

let testDb: TestDb;
beforeEach(async () => {
  testDb = await freshPostgresDb();
});
afterEach(() => testDb.cleanup());

async function query<T>(text: string): Promise<T[]> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: testPool(testDb) }) });
  try {
    return (await sql.raw<T>(text).execute(db)).rows;
  } finally {
    await db.destroy();
  }
}

test("stores opened at once on an empty database migrate once, one after the other", async () => {
  const stores = await Promise.all([1, 2, 3, 4].map(() => openPostgresStore(testDb.db, repos)));
  await Promise.all(stores.map((s) => s.close()));
  const applied = await query<{ name: string }>("select name from kysely_migration order by name");
  expect(applied.map((r) => r.name)).toEqual([...new Set(applied.map((r) => r.name))]);
  expect(applied.length).toBeGreaterThanOrEqual(2);
});

test("a database migrated by a newer build is refused", async () => {
  await (await openPostgresStore(testDb.db, repos)).close();
  await query("insert into kysely_migration (name, timestamp) values ('9999_from_the_future', now()::text)");
  await expect(openPostgresStore(testDb.db, repos)).rejects.toThrow(/migration/);
});

test("the migrated events table is vacuumed and analyzed after a hundredth of it changed (0009)", async () => {
  await (await openPostgresStore(testDb.db, repos)).close();
  const [events] = await query<{ reloptions: string[] }>("select reloptions from pg_class where relname = 'events'");
  expect(events!.reloptions).toEqual(expect.arrayContaining(["autovacuum_vacuum_insert_scale_factor=0.01", "autovacuum_analyze_scale_factor=0.01"]));
});

test("servers started at once on an empty database bootstrap one account and user", async () => {
  const servers = await Promise.all([1, 2, 3].map(() => startTestServer({ db: testDb.db })));
  try {
    expect(await query<{ n: string }>("select count(*) as n from accounts")).toEqual([{ n: "1" }]);
    expect(await query<{ n: string }>("select count(*) as n from users")).toEqual([{ n: "1" }]);
    // Every server printed a usable token for that one user.
    const users = await Promise.all(servers.map(async (s) => (await s.domain.auth.authenticate(s.token!)).user.id));
    expect(new Set(users).size).toBe(1);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

test("bootstraps racing on a migrated, empty database create one account: the others run again and find it", async () => {
  const stores = await Promise.all([1, 2, 3, 4].map(() => openPostgresStore(testDb.db, repos)));
  try {
    const domains = stores.map((store) => createDomain({ store, clock: new ManualClock("2025-03-01T12:00:00Z"), secrets: cryptoSecrets }));
    const boots = await Promise.all(domains.map((d) => d.accounts.bootstrap()));
    expect(boots.filter((b) => b.created)).toHaveLength(1);
    expect(new Set(boots.map((b) => b.user.id)).size).toBe(1);
    expect(await query<{ n: string }>("select count(*) as n from users")).toEqual([{ n: "1" }]);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});

test("concurrent read-modify-write transactions lose no update (serializable, run again on conflict)", async () => {
  const store = await openPostgresStore(testDb.db, repos, { maxConnections: 8 });
  try {
    const userId = (await seedUser(store)).id;
    await store.preferences.put(userId, 0, "0");
    const increments = 40;
    await Promise.all(
      Array.from({ length: increments }, () =>
        store.transaction(async (tx) => {
          const n = Number(await tx.preferences.get(userId, 0));
          await tx.preferences.put(userId, 0, String(n + 1));
        }),
      ),
    );
    expect(await store.preferences.get(userId, 0)).toBe(String(increments));
  } finally {
    await store.close();
  }
});

test("counts are numbers and booleans round-trip on Postgres", async () => {
  const store = await openPostgresStore(testDb.db, repos);
  try {
    const userId = (await seedUser(store)).id;
    expect(await sshKeyCount(store, userId)).toBe(0);
    const user = await store.users.update(userId, { email_notifications: false, authorized_keys: ["ssh-ed25519 AAAA"] });
    expect(user).toMatchObject({ email_notifications: false, restricted: false, authorized_keys: ["ssh-ed25519 AAAA"] });
    expect(typeof user!.id).toBe("number");
  } finally {
    await store.close();
  }
});
