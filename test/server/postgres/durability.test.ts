/** @tier postgres */
/**
 * A `mgmt serve` on Postgres killed with SIGKILL mid-load loses no write it acknowledged: every
 * acknowledged SSH key (and its event) is in the database, and another server on the same
 * database, which had a page of them remembered, lists every one on its next request.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { bundleCli } from "../cli-bundle";
import { call, startTestServer } from "../helpers";
import { ed25519Key } from "../sshkey-gen";
import { freshPostgresDb, type TestDb } from "../test-store";
import { spawnServe, writeUntilKilled } from "../kill-mid-load";

let dir: string;
let testDb: TestDb;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-pg-durable-"));
  testDb = await freshPostgresDb();
});
afterEach(async () => {
  await testDb.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test("a server killed with SIGKILL keeps every SSH key (and its event) it acknowledged; another server lists them next", async () => {
  const bundle = await bundleCli(dir);
  const { child, url, token, exited } = await spawnServe(bundle, ["--db", testDb.db, "--no-default-fixtures"], {
    MGMT_DATABASE_URL: "",
    MGMT_DATA_DIR: dir,
  });
  const other = await startTestServer({ db: testDb.db });
  try {
    // The other server remembers the (empty) page and the token's lookup.
    for (let i = 0; i < 2; i++) expect((await call(other, "GET", "/profile/sshkeys?page_size=500", { token })).body).toMatchObject({ results: 0 });

    const acknowledged = await writeUntilKilled(child, url, token, 100);
    await exited;
    expect(child.signalCode).toBe("SIGKILL");
    expect(acknowledged.size).toBeGreaterThanOrEqual(100);

    const client = new pg.Client({ connectionString: testDb.db });
    await client.connect();
    try {
      const keys = new Map((await client.query<{ id: number; label: string }>("select id, label from ssh_keys")).rows.map((k) => [k.id, k.label]));
      const events = new Set(
        (await client.query<{ entity_id: string }>("select entity_id from events where action = 'user_ssh_key_add'")).rows.map((e) => String(e.entity_id)),
      );
      for (const [id, label] of acknowledged) {
        expect(keys.get(id)).toBe(label);
        expect(events.has(String(id))).toBe(true);
      }
      const page = (await call(other, "GET", "/profile/sshkeys?page_size=500", { token })).body as { results: number; data: Array<{ id: number }> };
      expect(page.results).toBe(keys.size);
      expect(page.data.map((k) => k.id)).toEqual(expect.arrayContaining([...acknowledged.keys()]));

      // Ids are reserved in blocks (src/server/store/throughput/id-blocks.ts): none the killed server held,
      // used or not, is handed out again.
      const after = await Promise.all(
        Array.from({ length: 40 }, (_, i) => call(other, "POST", "/profile/sshkeys", { token, json: { label: `after ${i}`, ssh_key: ed25519Key() } })),
      );
      expect(after.map((r) => r.status)).toEqual(after.map(() => 200));
      const newIds = after.map((r) => (r.body as { id: number }).id);
      expect(new Set(newIds).size).toBe(newIds.length);
      // Drawn after the kill, so past every block the killed server drew.
      expect(Math.min(...newIds)).toBeGreaterThan(Math.max(...keys.keys()));
      const total = await client.query<{ n: string }>("select count(*) as n from ssh_keys");
      expect(Number(total.rows[0]!.n)).toBe(keys.size + newIds.length);
    } finally {
      await client.end();
    }
  } finally {
    await other.close();
  }
}, 120_000);
