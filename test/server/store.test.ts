/**
 * The store and bootstrap on a real SQLite file: tokens only as hashes, state surviving a
 * restart, a fresh token on every restart, the fixed token, migrations.
 */
import BetterSqlite3 from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Profile, SshKey } from "../../src/contract";
import { hashToken } from "../../src/server/domain/tokens";
import { openSqliteStore } from "../../src/server/store/sqlite";
import { call, startTestServer } from "./helpers";
import { ed25519Key } from "./sshkey-gen";

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

test("state survives a restart, which mints a new token and keeps the old one valid", async () => {
  const file = join(dir, "mgmt.sqlite");
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
  const file = join(dir, "mgmt.sqlite");
  await (await startTestServer({ db: file })).close();
  const again = await startTestServer({ db: file, mintToken: false });
  expect(again.token).toBeNull();
  await again.close();
});

test("a fixed token is created once, reused on restart, and refused once revoked", async () => {
  const file = join(dir, "mgmt.sqlite");
  const fixed = "local-dev-token-0123456789";
  const first = await startTestServer({ db: file, token: fixed });
  expect(first.token).toBe(fixed);
  expect((await call(first, "GET", "/profile")).status).toBe(200);
  await first.close();

  const second = await startTestServer({ db: file, token: fixed });
  expect(second.token).toBe(fixed);
  expect((await call(second, "GET", "/profile/sshkeys")).status).toBe(200);
  const actor = await second.domain.tokens.authenticate(fixed);
  await second.domain.tokens.revoke(actor, actor.token.id);
  await second.close();

  const db = new BetterSqlite3(file, { readonly: true });
  expect(db.prepare("select count(*) as n from tokens").get()).toEqual({ n: 1 });
  db.close();

  await expect(startTestServer({ db: file, token: fixed })).rejects.toThrow(/revoked or has expired/);
});

test("a fixed token on a fresh in-memory store", async () => {
  const server = await startTestServer({ token: "abc" });
  expect(server.token).toBe("abc");
  expect((await call(server, "GET", "/profile")).status).toBe(200);
  await server.close();
});

test("migrations are idempotent, and a store from a newer build is refused", async () => {
  const file = join(dir, "mgmt.sqlite");
  await (await openSqliteStore(file)).close();
  await (await openSqliteStore(file)).close();

  const db = new BetterSqlite3(file);
  db.prepare("insert into kysely_migration (name, timestamp) values (?, ?)").run("9999_from_the_future", new Date().toISOString());
  db.close();
  await expect(openSqliteStore(file)).rejects.toThrow(/migration/);
});

test("the store round-trips a user record and rolls back a failed transaction", async () => {
  const store = await openSqliteStore(":memory:");
  try {
    const account = await store.accounts.insert({ euuid: "E", active_since: "2025-01-01T00:00:00" });
    const user = await store.users.insert({
      account_id: account.id,
      username: "u",
      email: "u@example.com",
      restricted: false,
      authentication_type: "password",
      authorized_keys: ["ssh-ed25519 AAAA"],
      email_notifications: true,
      ip_whitelist_enabled: false,
      lish_auth_method: "keys_only",
      timezone: "UTC",
      two_factor_auth: false,
      verified_phone_number: null,
      referral_code: "r",
      created: "2025-01-01T00:00:00",
    });
    expect(await store.users.get(user.id)).toEqual(user);
    await store.sshKeys.insert({ user_id: user.id, label: "", ssh_key: "k", created: "2025-01-01T00:00:00" });
    expect(await store.sshKeys.count(user.id)).toBe(1);
    // A transaction that throws leaves nothing behind.
    await expect(
      store.transaction(async (tx) => {
        await tx.sshKeys.insert({ user_id: user.id, label: "", ssh_key: "k2", created: "2025-01-01T00:00:00" });
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    expect(await store.sshKeys.count(user.id)).toBe(1);
  } finally {
    await store.close();
  }
});
