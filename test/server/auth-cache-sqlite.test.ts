/**
 * Authentication remembers a token's lookup while nothing it read can have changed (see
 * `TokenService.authenticate` and the SQLite store's `authMark`). Changes made by this server
 * are covered where they happen (tokens.test.ts: revocation, expiry, OAuth apps); these are
 * the ones it cannot see itself: another process writing to the same SQLite file. (Postgres
 * remembers nothing, so this file is for the SQLite store only.)
 */
import BetterSqlite3 from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, startTestServer, type TestServer } from "./helpers";
import { onPostgres } from "./test-store";

(onPostgres() ? describe.skip : describe)("another process changes what a remembered token stood for", () => {
  let dir: string;
  let server: TestServer;
  let other: BetterSqlite3.Database;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "mgmt-auth-"));
    server = await startTestServer({ db: join(dir, "mgmt.sqlite") });
    other = new BetterSqlite3(join(dir, "mgmt.sqlite"));
    // Twice, so the second answer comes from what the first remembered.
    for (let i = 0; i < 2; i++) expect((await call(server, "GET", "/profile")).status).toBe(200);
  });
  afterEach(async () => {
    other.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("revoked there: 401 here at once", async () => {
    other.prepare("update tokens set revoked = '2025-03-01T12:00:00'").run();
    expect((await call(server, "GET", "/profile")).status).toBe(401);
  });

  test("scopes narrowed there: the next answer has the new scopes", async () => {
    other.prepare("update tokens set scopes = 'account:read_only'").run();
    const res = await call(server, "GET", "/profile");
    expect(res.headers["x-oauth-scopes"]).toBe("account:read_only");
  });

  test("the user changed there: the next request acts as the changed user", async () => {
    // A proxy user may not create personal access tokens (the rule reads the acting user).
    other.prepare("update users set user_type = 'proxy'").run();
    expect((await call(server, "POST", "/profile/tokens", { json: { label: "x" } })).status).toBe(403);
  });
});
