/** @tier unit */
/**
 * Migration 0008 on both stores (the server-postgres project runs this file on Postgres): invoices, maintenance
 * and notifications stored before it, as JSON bodies only, get their filtered columns from those bodies, so the
 * store's filters and pages see them as they see rows written since. (0009, Postgres's autovacuum of events, is
 * held by test/server/postgres/store.test.ts.)
 */
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from "kysely";
import { migrations } from "../../src/server/store/migrations";
import { freshDb, onPostgres, testPool, type TestDb } from "./test-store";

let testDb: TestDb;
let db: Kysely<unknown>;
beforeEach(async () => {
  testDb = await freshDb();
  db = new Kysely<unknown>({
    dialect: onPostgres() ? new PostgresDialect({ pool: testPool(testDb) }) : new SqliteDialect({ database: new BetterSqlite3(testDb.db) }),
  });
});
afterEach(async () => {
  await db.destroy();
  await testDb.cleanup();
});

test("rows stored before 0008 get their columns from their bodies", async () => {
  const flavor = onPostgres() ? "postgres" : "sqlite";
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations(flavor) } });
  expect((await migrator.migrateTo("0007_lists_by_account_id")).error).toBeUndefined();
  await sql`insert into accounts (euuid, active_since) values ('A', '2025-01-01T00:00:00')`.execute(db);
  const account = (await sql<{ id: number }>`select id from accounts`.execute(db)).rows[0]!.id;
  const invoice = { date: "2025-02-01T00:00:00", label: "Feb", subtotal: 10, tax: 1, tax_summary: [], total: 11.5, billing_source: "compute" };
  const item = {
    entity: { id: 7, label: "vm", type: "linode", url: "/v4/linode/instances/7" },
    reason: "r",
    status: "pending",
    type: "reboot",
    when: "2030-01-01T00:00:00",
  };
  const notice = { body: null, entity: null, label: "l", message: "m", severity: "minor", type: "notice", until: "2031-01-01T00:00:00", when: null };
  await sql`insert into invoices (account_id, body) values (${account}, ${JSON.stringify(invoice)})`.execute(db);
  await sql`insert into maintenance (account_id, body) values (${account}, ${JSON.stringify(item)})`.execute(db);
  await sql`insert into notifications (account_id, body, resolved) values (${account}, ${JSON.stringify(notice)}, null)`.execute(db);
  await sql`insert into notifications (account_id, body, resolved) values (${account}, ${JSON.stringify({ ...notice, until: null })}, null)`.execute(db);

  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  expect((await sql`select billing_source, date, label, total from invoices`.execute(db)).rows).toEqual([
    { billing_source: "compute", date: "2025-02-01T00:00:00", label: "Feb", total: 11.5 },
  ]);
  expect((await sql`select status, type, when_at, entity_id from maintenance`.execute(db)).rows).toEqual([
    { status: "pending", type: "reboot", when_at: "2030-01-01T00:00:00", entity_id: "7" },
  ]);
  expect((await sql`select until from notifications order by id`.execute(db)).rows).toEqual([{ until: "2031-01-01T00:00:00" }, { until: null }]);
  // And back: the columns go, the bodies stay.
  expect((await migrator.migrateTo("0007_lists_by_account_id")).error).toBeUndefined();
  expect((await sql`select body from invoices`.execute(db)).rows).toEqual([{ body: JSON.stringify(invoice) }]);
});
