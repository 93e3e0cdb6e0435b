/** @tier unit */
/**
 * Issue 44, item 4: a store that cannot write is reported, at start (`RunningServer.storeAtStart`,
 * which `mgmt serve` prints in its ready line) and by `GET /__admin/ready` (503 saying why), while
 * reads go on. SQLite: `query_only` refuses writes as a read-only file does (the tests run as
 * root, whom a file's mode does not stop) and `max_page_count` caps the file as a full disk does.
 * Postgres: a database whose transactions are read-only (`default_transaction_read_only`), from
 * the start. No child process here, so nothing can outlive the file.
 */
import { sql, type Kysely } from "kysely";
import pg from "pg";
import { silentLogger, startServer, type RunningServer } from "../../src/server";
import { ed25519Key } from "./sshkey-gen";
import { call, startTestServer, type TestServer } from "./helpers";
import { freshDb, onPostgres, type TestDb } from "./test-store";

const ready = async (server: RunningServer) => {
  const res = await fetch(`${server.adminUrl}/ready`, { headers: { authorization: `Bearer ${server.adminToken}` } });
  return { status: res.status, body: (await res.json()) as { ready: boolean; store: { writable: boolean; reason?: string; problem?: string } } };
};

describe("a store that can write", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ defaultFixtures: false });
  });
  afterAll(() => server.close());

  test("is ready at start and when asked, and the check stores nothing", async () => {
    expect(server.storeAtStart).toEqual({ writable: true });
    const before = await server.store.dump();
    expect(await ready(server)).toEqual({ status: 200, body: { ready: true, store: { writable: true } } });
    expect(await server.store.dump()).toEqual(before);
  });

  // Each store registers only the case it can run (no skipped test shows on the other).
  if (!onPostgres())
    test("SQLite: read-only, then full, is 503 naming which; ready again once it can write", async () => {
      // The repositories' database is protected in the source; the test reaches it to change the connection.
      const db = (server.store.sshKeys as unknown as { db: Kysely<unknown> }).db;
      await sql.raw("pragma query_only = on").execute(db);
      const readOnly = await ready(server);
      expect(readOnly.status).toBe(503);
      expect(readOnly.body).toMatchObject({ ready: false, store: { writable: false, reason: "read-only" } });
      expect((await call(server, "GET", "/profile")).status).toBe(200);
      // A write is refused at its transaction's BEGIN (`begin immediate`), and answered: 503, not a server spinning on it.
      const write = await call(server, "POST", "/profile/tokens", { json: { label: "refused" } });
      expect(write.status).toBe(503);
      expect(JSON.stringify(write.body)).toContain("read-only");
      await sql.raw("pragma query_only = off").execute(db);
      expect((await call(server, "POST", "/profile/tokens", { json: { label: "after" } })).status).toBe(200);

      const pages = Number(((await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0] as { page_count: number }).page_count);
      await sql.raw(`pragma max_page_count = ${pages}`).execute(db);
      // Fill what free pages the file has, so the next write needs a page it cannot get.
      for (let i = 0; i < 400 && (await call(server, "POST", "/profile/sshkeys", { json: { label: `k-${i}`, ssh_key: ed25519Key() } })).status === 200; i++);
      const full = await ready(server);
      expect(full.status).toBe(503);
      expect(full.body).toMatchObject({ ready: false, store: { writable: false, reason: "no space" } });
      await sql.raw("pragma max_page_count = 1073741823").execute(db);
      expect((await ready(server)).status).toBe(200);
    });
});

if (onPostgres())
  describe("Postgres: a read-only database", () => {
    let testDb: TestDb;
    let server: RunningServer | undefined;
    afterAll(async () => {
      await server?.close();
      await testDb?.cleanup();
    });

    test("is reported at start and by /ready, reads are answered, a write is 503", async () => {
      testDb = await freshDb();
      const first = await startServer({ db: testDb.db, logger: silentLogger });
      const token = first.token!;
      await first.close();
      const client = new pg.Client({ connectionString: testDb.db });
      await client.connect();
      try {
        const name = new URL(testDb.db).pathname.slice(1);
        await client.query(`alter database "${name}" set default_transaction_read_only = on`);
      } finally {
        await client.end();
      }

      server = await startServer({ db: testDb.db, logger: silentLogger, keptToken: token });
      expect(server.storeAtStart).toMatchObject({ writable: false, reason: "read-only" });
      expect((await ready(server)).status).toBe(503);
      const auth = { authorization: `Bearer ${server.token}` };
      expect((await fetch(`${server.url}/profile`, { headers: auth })).status).toBe(200);
      const write = await fetch(`${server.url}/profile/tokens`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: '{"label":"x"}',
      });
      expect(write.status).toBe(503);
    });
  });
