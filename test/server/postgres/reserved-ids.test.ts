/** @tier postgres */
/**
 * Ids reserved ahead in blocks (src/server/store/throughput/id-blocks.ts), on Postgres: an SSH key's insert
 * brings its id and goes out with its group's commit. No id is handed out twice, by two stores
 * on one database, by a store opened after another stopped, or after an admin reset restarted
 * the sequences under a store that still held ids; a transaction of a group that fails does
 * not fail its neighbours; a group run again alone writes each key once.
 */
import pg from "pg";
import { repos, type Store } from "../../../src/server/areas";
import { BLOCK } from "../../../src/server/store/throughput/id-blocks";
import { openPostgresStore } from "../../../src/server/store/postgres";
import { ed25519Key } from "../sshkey-gen";
import { call, startTestServer } from "../helpers";
import { freshPostgresDb, seedUser, type TestDb } from "../test-store";

let testDb: TestDb;
let client: pg.Client;
beforeEach(async () => {
  testDb = await freshPostgresDb();
  client = new pg.Client({ connectionString: testDb.db });
  await client.connect();
});
afterEach(async () => {
  await client.end();
  await testDb.cleanup();
});

const KEY = ed25519Key();
const stored = async (): Promise<Array<{ id: number; label: string }>> =>
  (await client.query<{ id: number; label: string }>("select id, label from ssh_keys order by id")).rows;

const newKey = (userId: number, label: string) => ({ user_id: userId, label, ssh_key: KEY, created: "2025-03-01T12:00:00" });

/** `n` keys created through `store`, `together` at a time (so they form groups), answering their ids in order. */
async function create(store: Store, userId: number, prefix: string, n: number, together = 8): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i += together) {
    const batch = Array.from({ length: Math.min(together, n - i) }, (_, j) =>
      store.transaction(async (tx) => (await tx.sshKeys.insert(newKey(userId, `${prefix}${i + j}`))).id),
    );
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

test("two stores on one database, and a store opened after one closed, never hand out one id twice", async () => {
  const a = await openPostgresStore(testDb.db, repos);
  const b = await openPostgresStore(testDb.db, repos);
  let a2: Store | undefined;
  try {
    const userId = (await seedUser(a)).id;
    const [fromA, fromB] = await Promise.all([create(a, userId, "a", 3 * BLOCK), create(b, userId, "b", 3 * BLOCK)]);
    // One store hands out its ids in the order they are asked for.
    expect(fromA).toEqual([...fromA].sort((x, y) => x - y));
    expect(fromB).toEqual([...fromB].sort((x, y) => x - y));
    // A stopped store's ids (those it held unused included) are never handed out again.
    await a.close();
    a2 = await openPostgresStore(testDb.db, repos);
    const fromA2 = await create(a2, userId, "c", BLOCK);
    const all = [...fromA, ...fromB, ...fromA2];
    expect(new Set(all).size).toBe(all.length);
    expect(Math.min(...fromA2)).toBeGreaterThan(Math.max(...fromA, ...fromB));
    // Each answered id names the row that was written with it.
    const rows = await stored();
    expect(rows).toHaveLength(all.length);
    const labels = new Map(rows.map((r) => [r.id, r.label]));
    fromA.forEach((id, i) => expect(labels.get(id)).toBe(`a${i}`));
    fromB.forEach((id, i) => expect(labels.get(id)).toBe(`b${i}`));
    fromA2.forEach((id, i) => expect(labels.get(id)).toBe(`c${i}`));
  } finally {
    await b.close();
    await a2?.close();
  }
});

test("a transaction of a group that fails does not fail its neighbours, and takes no row with it", async () => {
  const store = await openPostgresStore(testDb.db, repos);
  try {
    const userId = (await seedUser(store)).id;
    await create(store, userId, "warm", 2);
    const outcomes = await Promise.allSettled(
      [0, 1, 2, 3, 4].map((i) =>
        store.transaction(async (tx) => {
          const { id } = await tx.sshKeys.insert(newKey(userId, `k${i}`));
          if (i === 2) throw new Error("a rule of the domain");
          return id;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const ids = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value as number] : []));
    expect((await stored()).filter((r) => r.label.startsWith("k"))).toEqual(ids.map((id, i) => ({ id, label: `k${[0, 1, 3, 4][i]}` })));
  } finally {
    await store.close();
  }
});

test("a group that fails at its commit runs its transactions again alone: each key written once, under the id it was answered", async () => {
  const store = await openPostgresStore(testDb.db, repos);
  try {
    const userId = (await seedUser(store)).id;
    // Every statement prepared on the store's connections, so the group's inserts all go with its commit.
    await create(store, userId, "warm", 40, 16);
    const before = (await stored()).length;
    const outcomes = await Promise.allSettled(
      [0, 1, 2, 3, 4, 5].map((i) =>
        // A null label fails only when the insert reaches the database: at the group's commit.
        store.transaction(async (tx) => (await tx.sshKeys.insert({ ...newKey(userId, `k${i}`), label: i === 3 ? (null as unknown as string) : `k${i}` })).id),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({ code: "23502" });
    const rows = await stored();
    expect(rows).toHaveLength(before + 5);
    const labels = new Map(rows.map((r) => [r.id, r.label]));
    outcomes.forEach((o, i) => {
      if (o.status === "fulfilled") expect(labels.get(o.value)).toBe(`k${i}`);
    });
  } finally {
    await store.close();
  }
});

test("after an admin reset on one server, the other server's ids reserved before it never fail a create", async () => {
  const a = await startTestServer({ db: testDb.db });
  const b = await startTestServer({ db: testDb.db });
  try {
    const post = (server: typeof a, token: string, label: string) => call(server, "POST", "/profile/sshkeys", { token, json: { label, ssh_key: KEY } });
    // B holds a block reserved before the reset.
    expect((await post(b, a.token!, "before")).status).toBe(200);
    const reset = await call(a, "POST", "//__admin/reset", { token: a.adminToken, json: {} });
    expect(reset.status).toBe(200);
    const token = (reset.body as { token: string }).token;
    // The sequences restarted: A draws ids B still holds, and B's next ones meet A's rows.
    const first = await Promise.all([1, 2, 3].map((i) => post(a, token, `a${i}`)));
    const then = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => post(b, token, `b${i}`)));
    const last = await Promise.all([4, 5, 6, 7, 8].map((i) => post(a, token, `a${i}`)));
    const replies = [...first, ...then, ...last];
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    const answered = replies.map((r) => r.body as { id: number; label: string });
    expect(new Set(answered.map((k) => k.id)).size).toBe(answered.length);
    expect(await stored()).toEqual(answered.map(({ id, label }) => ({ id, label })).sort((x, y) => x.id - y.id));
  } finally {
    await a.close();
    await b.close();
  }
});
