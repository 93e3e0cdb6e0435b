/** @tier unit */
/**
 * The SQLite store's read worker (src/server/store/read-routes.ts, read-worker.ts): on a file, a
 * paged list outside a transaction is read on the worker's connection, so it answers while a
 * transaction holds the main one (on the main connection it would wait for it), sees what was
 * committed and nothing in progress, and a write acknowledged before it is seen.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { entities } from "../../src/server/domain/event-entities";
import { silentLogger, startServer, type RunningServer } from "../../src/server";
import { Routes } from "../../src/server/store/read-routes";

let dir: string;
let server: RunningServer;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-readworker-"));
  server = await startServer({ db: join(dir, "mgmt.sqlite"), logger: silentLogger });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const SINCE = "1970-01-01T00:00:00";

async function recorder() {
  const actor = await server.domain.auth.authenticate(server.token!);
  const accountId = actor.user.account_id;
  const record = (name: string) => server.domain.events.record({ actor, action: "tag_create", entity: entities.tag(name) });
  const page = () => server.store.events.pageSince(accountId, SINCE, { limit: 100, offset: 0 });
  return { actor, record, page };
}

/** Opens a transaction that records an event and stays open (holding the main connection) until `release` is called. */
function heldTransaction(record: (name: string) => Promise<unknown>): { recorded: Promise<void>; release: () => void; committed: Promise<void> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let recorded!: () => void;
  const inside = new Promise<void>((resolve) => (recorded = resolve));
  const committed = server.store.transaction(async () => {
    await record("in-progress");
    recorded();
    await gate;
  });
  return { recorded: inside, release, committed };
}

test("a list answers while a transaction holds the main connection, with what was committed only; after the commit it sees the write", async () => {
  const { record, page } = await recorder();
  await record("committed");
  const before = await page();

  const held = heldTransaction(record);
  await held.recorded;
  // On the main connection this would wait for the transaction (it never ends until released): it answers.
  const during = await page();
  expect(during.total).toBe(before.total);
  expect(during.rows.map((e) => e.entity?.label)).not.toContain("in-progress");

  held.release();
  await held.committed;
  const after = await page();
  expect(after.total).toBe(before.total + 1);
  expect(after.rows[0]!.entity?.label).toBe("in-progress");
});

test("a write acknowledged is seen by the next list, every time", async () => {
  const { record, page } = await recorder();
  const start = (await page()).total;
  for (let i = 1; i <= 20; i++) {
    await record(`tag-${i}`);
    const now = await page();
    expect(now.total).toBe(start + i);
    expect(now.rows[0]!.entity?.label).toBe(`tag-${i}`);
  }
});

test("what a transaction wrote moves the tables' marks again when it ends, past anything read while it was open", async () => {
  const { actor, record } = await recorder();
  const mark = () => server.store.sshKeys.listMark();
  const held = heldTransaction(async () => {
    await record("x");
    await server.store.sshKeys.insert({ user_id: actor.user.id, label: "k", ssh_key: "ssh-ed25519 AAAA", created: "2026-01-01T00:00:00" });
  });
  await held.recorded;
  const during = mark();
  expect(during).toBeDefined();
  held.release();
  await held.committed;
  expect(mark()).not.toBe(during);
});

describe("which reads move to the worker", () => {
  const db = new BetterSqlite3(":memory:");
  db.exec("create table users (id integer primary key, name text)");
  afterAll(() => db.close());
  const byId = 'select * from "users" where "id" = ?';

  test("a count goes at once; a read by key stays, and a write", () => {
    const routes = new Routes(db);
    expect(routes.of('select count(*) from "users"')).toBe("worker");
    expect(routes.of(byId)).toBe("read");
    expect(routes.of('update "users" set "name" = ?')).toBe("main");
  });

  test("a read goes only once it was slow three times in a row: one slow run (a collection, a preemption) is not enough", () => {
    const routes = new Routes(db);
    routes.of(byId);
    routes.took(byId, 5);
    routes.took(byId, 5);
    routes.took(byId, 0.1);
    routes.took(byId, 5);
    routes.took(byId, 5);
    expect(routes.of(byId)).toBe("read");
    routes.took(byId, 5);
    expect(routes.of(byId)).toBe("worker");
  });
});
