/** @tier unit */
/**
 * What the server remembers between requests on SQLite, and why it is never stale: a token's
 * lookup (`Authenticator.authenticate`) and answered pages of SSH keys (`RememberedAnswers`),
 * each kept while the store's `tablesMark` of what it read stays the same. This server's own
 * changes are covered where they happen (tokens.test.ts: revocation, expiry, OAuth apps;
 * sshkeys.test.ts: lists after writes); these are the ones it cannot see itself (another
 * process writing to the same file) and the write accounting under the marks. Postgres marks
 * by snapshot instead (postgres/remembered.test.ts), so this file is for the SQLite store only.
 */
import BetterSqlite3 from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../../src/server/store/sqlite";
import { WriteMarks, cascadesOf } from "../../src/server/store/throughput/write-marks";
import { call, startTestServer, type TestServer } from "./helpers";
import { repos } from "../../src/server/areas";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-remembered-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("another process changes what was remembered", () => {
  let server: TestServer;
  let other: BetterSqlite3.Database;
  beforeEach(async () => {
    server = await startTestServer({ db: join(dir, "mgmt.sqlite") });
    other = new BetterSqlite3(join(dir, "mgmt.sqlite"));
    // Twice, so the second answers come from what the first remembered.
    for (let i = 0; i < 2; i++) {
      expect((await call(server, "GET", "/profile")).status).toBe(200);
      expect((await call(server, "GET", "/profile/sshkeys")).body).toMatchObject({ results: 0 });
    }
  });
  afterEach(async () => {
    other.close();
    await server.close();
  });

  test("a token revoked there: 401 here at once", async () => {
    other.prepare("update tokens set revoked = '2025-03-01T12:00:00'").run();
    expect((await call(server, "GET", "/profile")).status).toBe(401);
  });

  test("scopes narrowed there: the next answer has the new scopes", async () => {
    other.prepare("update tokens set scopes = 'account:read_only'").run();
    expect((await call(server, "GET", "/profile")).headers["x-oauth-scopes"]).toBe("account:read_only");
  });

  test("the user changed there: the next request acts as the changed user", async () => {
    // A proxy user may not create personal access tokens (the rule reads the acting user).
    other.prepare("update users set user_type = 'proxy'").run();
    expect((await call(server, "POST", "/profile/tokens", { json: { label: "x" } })).status).toBe(403);
  });

  test("a key added there: listed here at once", async () => {
    other.prepare("insert into ssh_keys (user_id, label, ssh_key, created) select id, 'elsewhere', 'ssh-ed25519 AAAA', '2025-03-01T12:00:00' from users").run();
    expect((await call(server, "GET", "/profile/sshkeys")).body).toMatchObject({ results: 1, data: [{ label: "elsewhere" }] });
  });
});

describe("write accounting", () => {
  test("a write counts against its table and those its updates and deletes cascade into, nothing else", async () => {
    const store = await openSqliteStore(join(dir, "marks.sqlite"), repos);
    await store.close();
    const db = new BetterSqlite3(join(dir, "marks.sqlite"));
    const marks = new WriteMarks();
    marks.useSchema(cascadesOf(db));
    db.close();
    const moved = (sql: string, tables: string[]) => {
      const before = marks.mark(tables);
      marks.note(sql);
      return marks.mark(tables) !== before;
    };
    expect(moved('insert into "ssh_keys" ("user_id") values (?)', ["ssh_keys"])).toBe(true);
    expect(moved('insert into "ssh_keys" ("user_id") values (?)', ["tokens", "users", "oauth_apps"])).toBe(false);
    expect(moved('insert into "events" ("account_id") values (?) returning *', ["ssh_keys", "tokens"])).toBe(false);
    // A new event or user changes no read or seen mark, no key or token: an insert does not cascade.
    expect(moved('insert into "events" ("account_id") values (?) returning "id"', ["events"])).toBe(true);
    expect(moved('insert into "events" ("account_id") values (?)', ["event_reads", "event_seen"])).toBe(false);
    expect(moved('insert into "users" ("username") values (?)', ["ssh_keys", "tokens", "grants"])).toBe(false);
    // An upsert may update a key its children follow.
    expect(moved('insert into "users" ("username") values (?) on conflict ("username") do update set "id" = ?', ["ssh_keys"])).toBe(true);
    // Deleting a user deletes their keys and tokens; an account, its users and OAuth clients' apps.
    expect(moved('delete from "users" where "id" = ?', ["ssh_keys"])).toBe(true);
    expect(moved('DELETE FROM "accounts"', ["tokens"])).toBe(true);
    expect(moved('delete from "oauth_clients" where "id" = ?', ["oauth_apps"])).toBe(true);
    expect(moved('update "tokens" set "revoked" = ?', ["tokens"])).toBe(true);
    // Taking the write lock changes no row.
    expect(moved("begin immediate", ["tokens", "ssh_keys"])).toBe(false);
    // What is not parsed as a write to one known table counts everywhere.
    expect(moved("insert or replace into ssh_keys values (1)", ["tokens"])).toBe(true);
    expect(moved("PRAGMA defer_foreign_keys = ON", ["ssh_keys"])).toBe(true);
    expect(moved('insert into "no_such_table" values (1)', ["tokens"])).toBe(true);
  });
});
