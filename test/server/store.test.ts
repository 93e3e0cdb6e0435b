/** @tier unit */
/**
 * The store and bootstrap on a persistent store of the kind under test (a SQLite file, or a
 * Postgres database in the server-postgres project): state surviving a restart, a fresh token
 * on every restart, the fixed token, transactions. What reads the SQLite file itself is in
 * store-sqlite.test.ts.
 */
import { Profile, SshKey } from "../../src/contract";
import { hashToken } from "../../src/server/auth/credentials";
import { isPostgresUrl, openPostgresStore } from "../../src/server/store/postgres";
import { openSqliteStore } from "../../src/server/store/sqlite";
import { call, START, startTestServer } from "./helpers";
import { ed25519Key } from "./sshkey-gen";
import { freshDb, seedUser, sshKeyCount, type TestDb } from "./test-store";
import { repos } from "../../src/server/areas";

let testDb: TestDb;
beforeEach(async () => {
  testDb = await freshDb();
});
afterEach(() => testDb.cleanup());

test("state survives a restart, which mints a new token and keeps the old one valid", async () => {
  const file = testDb.db;
  const first = await startTestServer({ db: file });
  const key = SshKey.parse((await call(first, "POST", "/profile/sshkeys", { json: { label: "kept", ssh_key: ed25519Key() } })).body);
  const uid = Profile.parse((await call(first, "GET", "/profile")).body).uid;
  await first.close();

  const second = await startTestServer({ db: file });
  try {
    expect(second.token).not.toBe(first.token);
    expect(Profile.parse((await call(second, "GET", "/profile")).body).uid).toBe(uid);
    expect(SshKey.parse((await call(second, "GET", `/profile/sshkeys/${key.id}`)).body)).toEqual(key);
    expect((await call(second, "GET", "/profile", { token: first.token })).status).toBe(200);
    const minted = await second.store.tokens.findByHash(hashToken(second.token!));
    expect(minted).toMatchObject({ label: "mgmt serve 2025-03-01T12:00:00", scopes: "*", expiry: null });
  } finally {
    await second.close();
  }
});

test("mintToken: false on an existing store gives no token", async () => {
  const file = testDb.db;
  await (await startTestServer({ db: file })).close();
  const again = await startTestServer({ db: file, mintToken: false });
  expect(again.token).toBeNull();
  await again.close();
});

test("a fixed token is created once, reused on restart, and refused once revoked", async () => {
  const file = testDb.db;
  const fixed = "local-dev-token-0123456789";
  const first = await startTestServer({ db: file, token: fixed });
  expect(first.token).toBe(fixed);
  expect((await call(first, "GET", "/profile")).status).toBe(200);
  await first.close();

  const second = await startTestServer({ db: file, token: fixed });
  expect(second.token).toBe(fixed);
  expect((await call(second, "GET", "/profile/sshkeys")).status).toBe(200);
  const actor = await second.domain.auth.authenticate(fixed);
  // Reused, not created again: the user still has exactly one token.
  expect((await second.store.tokens.listActive(actor.user.id, START.slice(0, 19), { limit: 1, offset: 0 })).total).toBe(1);
  await second.domain.tokens.revoke(actor, actor.token.id);
  await second.close();

  await expect(startTestServer({ db: file, token: fixed })).rejects.toThrow(/revoked or has expired/);
});

test("a fixed token on a fresh in-memory store", async () => {
  const server = await startTestServer({ token: "abc" });
  expect(server.token).toBe("abc");
  expect((await call(server, "GET", "/profile")).status).toBe(200);
  await server.close();
});

test("the store round-trips a user record and rolls back a failed transaction", async () => {
  const store = isPostgresUrl(testDb.db) ? await openPostgresStore(testDb.db, repos) : await openSqliteStore(testDb.db, repos);
  try {
    // A list and booleans make the trip through JSON text and 0/1 columns.
    const user = await seedUser(store, { authorized_keys: ["ssh-ed25519 AAAA"] });
    expect(await store.users.get(user.id)).toEqual(user);
    await store.sshKeys.insert({ user_id: user.id, label: "", ssh_key: "k", created: "2025-01-01T00:00:00" });
    expect(await sshKeyCount(store, user.id)).toBe(1);
    // A transaction that throws leaves nothing behind.
    await expect(
      store.transaction(async (tx) => {
        await tx.sshKeys.insert({ user_id: user.id, label: "", ssh_key: "k2", created: "2025-01-01T00:00:00" });
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    expect(await sshKeyCount(store, user.id)).toBe(1);
  } finally {
    await store.close();
  }
});
