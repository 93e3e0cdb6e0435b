/**
 * Issue 44, item 4: a write the store has no space for answers 507 saying so, not a generic 500,
 * and nothing of it is stored; once there is space again, writes work without a restart. On
 * SQLite, `max_page_count` caps the file the way a full disk does (the server's one connection).
 */
import { sql, type Kysely } from "kysely";
import { ed25519Key } from "./sshkey-gen";
import { call, startTestServer, type TestServer } from "./helpers";
import { onPostgres } from "./test-store";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const sqliteOnly = onPostgres() ? test.skip : test;

sqliteOnly("a full store answers 507 with the reason, stores nothing of the write, and recovers", async () => {
  // The repositories' database is protected in the source; the test reaches it to cap the file.
  const db = (server.store.sshKeys as unknown as { db: Kysely<unknown> }).db;
  const pages = Number(((await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0] as { page_count: number }).page_count);
  await sql.raw(`pragma max_page_count = ${pages}`).execute(db);
  const statuses: number[] = [];
  let refused: unknown;
  for (let i = 0; i < 400 && refused === undefined; i++) {
    const res = await call(server, "POST", "/profile/sshkeys", { json: { label: `full-${i}`, ssh_key: ed25519Key() } });
    statuses.push(res.status);
    if (res.status !== 200) refused = res.body;
  }
  expect(statuses.at(-1)).toBe(507);
  expect(JSON.stringify(refused)).toContain("out of space");
  const keys = (await call(server, "GET", "/profile/sshkeys?page_size=500")).body as { data: Array<{ label: string }> };
  expect(keys.data.filter((k) => k.label.startsWith("full-"))).toHaveLength(statuses.length - 1);
  await sql.raw(`pragma max_page_count = 1073741823`).execute(db);
  expect((await call(server, "POST", "/profile/sshkeys", { json: { label: "after-full", ssh_key: ed25519Key() } })).status).toBe(200);
});
