/** @tier unit */
/**
 * What only a SQLite file shows: the bytes at rest and the migration records in the file.
 * (The portable store tests are store.test.ts; Postgres's own are in test/server/postgres/.)
 */
import BetterSqlite3 from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashToken } from "../../src/server/auth/credentials";
import { openSqliteStore } from "../../src/server/store/sqlite";
import { startTestServer } from "./helpers";
import { repos } from "../../src/server/areas";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-store-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every text value in every table of the database file. */
function allText(file: string): string {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>;
    return tables.map(({ name }) => JSON.stringify(db.prepare(`select * from "${name}"`).all())).join("\n");
  } finally {
    db.close();
  }
}

test("a token is stored only as its SHA-256 hash and its first 16 characters", async () => {
  const file = join(dir, "mgmt.sqlite");
  const server = await startTestServer({ db: file });
  const token = server.token!;
  await server.close();
  const text = allText(file);
  expect(text).not.toContain(token);
  expect(text).toContain(hashToken(token));
  expect(text).toContain(`"token_prefix":"${token.slice(0, 16)}"`);
});

test("migrations are idempotent, and a store from a newer build is refused", async () => {
  const file = join(dir, "mgmt.sqlite");
  await (await openSqliteStore(file, repos)).close();
  await (await openSqliteStore(file, repos)).close();

  const db = new BetterSqlite3(file);
  db.prepare("insert into kysely_migration (name, timestamp) values (?, ?)").run("9999_from_the_future", new Date().toISOString());
  db.close();
  await expect(openSqliteStore(file, repos)).rejects.toThrow(/migration/);
});
