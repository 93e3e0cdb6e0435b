/** @tier postgres */
/**
 * A transaction's begin goes out with its first statement, and its writes marked `LATER` with
 * its next statement or its commit (src/server/store/throughput/deferred-begin.ts, named-statements.ts):
 * fewer round trips once the connection has prepared them, every statement still inside the
 * transaction (serializable, undone with it), a failure of any failing the transaction alone,
 * and nothing held back past the connection's release.
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { NamedStatements } from "../../../src/server/store/throughput/named-statements";
import { preparedInsertLater } from "../../../src/server/store/throughput/prepared";
import { freshPostgresDb, type TestDb, testPool } from "../test-store";

interface Tables {
  items: { id: number; label: string };
}

let testDb: TestDb;
let pool: pg.Pool;
let named: NamedStatements;
let db: Kysely<Tables>;
/** Round trips on the pool's one connection: each ends with a ReadyForQuery. */
let roundTrips = 0;
beforeEach(async () => {
  testDb = await freshPostgresDb();
  pool = testPool(testDb);
  pool.on("connect", (client) => {
    (client as unknown as { connection: NodeJS.EventEmitter }).connection.on("readyForQuery", () => roundTrips++);
  });
  named = new NamedStatements();
  db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: named.pool(pool) }) });
  await sql`create table items (id int primary key, label text not null)`.execute(db);
  named.startNaming();
});
afterEach(async () => {
  await db.destroy();
  await testDb.cleanup();
});

const serializable = <T>(fn: (trx: Kysely<Tables>) => Promise<T>): Promise<T> => db.transaction().setIsolationLevel("serializable").execute(fn);
const add = (trx: Kysely<Tables>, id: number, label = `item ${id}`) => trx.insertInto("items").values({ id, label }).execute();
const addLater = preparedInsertLater<Tables>()("items", ["id", "label"]);
const labels = async (): Promise<string[]> => (await db.selectFrom("items").select("label").orderBy("id").execute()).map((r) => r.label);

/** The round trips `fn` takes. */
async function tripsOf(fn: () => Promise<unknown>): Promise<number> {
  const before = roundTrips;
  await fn();
  return roundTrips - before;
}

test("after the connection's first transaction, a transaction of two inserts takes three round trips, not four", async () => {
  expect(await tripsOf(() => serializable(async (trx) => (await add(trx, 1), await add(trx, 2))))).toBe(4);
  expect(await tripsOf(() => serializable(async (trx) => (await add(trx, 3), await add(trx, 4))))).toBe(3);
  expect(await labels()).toEqual(["item 1", "item 2", "item 3", "item 4"]);
});

test("the first statement runs inside the serializable transaction: it sees its isolation and is undone with it", async () => {
  await serializable(async (trx) => void (await add(trx, 1)));
  const isolation = await serializable(
    async (trx) => (await sql<{ level: string }>`select current_setting('transaction_isolation') as level`.execute(trx)).rows[0]!.level,
  );
  expect(isolation).toBe("serializable");
  await expect(
    serializable(async (trx) => {
      await add(trx, 2);
      throw new Error("undo");
    }),
  ).rejects.toThrow("undo");
  expect(await labels()).toEqual(["item 1"]);
});

test("a first statement that fails fails its transaction alone; the connection goes on", async () => {
  await serializable(async (trx) => void (await add(trx, 1)));
  await expect(serializable(async (trx) => void (await add(trx, 1, "again")))).rejects.toMatchObject({ code: "23505" });
  await expect(serializable(async (trx) => void (await sql`select 1 / 0`.execute(trx)))).rejects.toMatchObject({ code: "22012" });
  await serializable(async (trx) => (await add(trx, 2), await add(trx, 3)));
  expect(await labels()).toEqual(["item 1", "item 2", "item 3"]);
});

test("a transaction that sends nothing costs no round trip", async () => {
  await serializable(async (trx) => void (await add(trx, 1)));
  expect(await tripsOf(() => serializable(async () => "nothing"))).toBe(0);
  await expect(serializable(() => Promise.reject(new Error("before any statement")))).rejects.toThrow("before any statement");
  expect(await labels()).toEqual(["item 1"]);
});

test("a begin held back when the connection is released opens nothing for its next user", async () => {
  await serializable(async (trx) => void (await add(trx, 1)));
  // Kysely's clients: the begin is prepared on the pool's one connection by the transaction above.
  const wrapped = named.pool(pool);
  const client = await wrapped.connect();
  expect(await tripsOf(() => client.query("start transaction isolation level serializable"))).toBe(0);
  client.release();

  const next = await wrapped.connect();
  try {
    await next.query("insert into items (id, label) values ($1, $2)", [2, "committed on its own"]);
  } finally {
    next.release();
  }
  const other = new pg.Client({ connectionString: testDb.db });
  await other.connect();
  try {
    expect((await other.query("select label from items order by id")).rows.map((r: { label: string }) => r.label)).toEqual(["item 1", "committed on its own"]);
  } finally {
    await other.end();
  }
});

test("a write marked LATER goes with the commit: an insert and an event-like write take two round trips", async () => {
  await serializable(async (trx) => (await add(trx, 1), await addLater(trx, { id: 2, label: "later 2" })));
  expect(await tripsOf(() => serializable(async (trx) => (await add(trx, 3), await addLater(trx, { id: 4, label: "later 4" }))))).toBe(2);
  // Alone in its transaction: begin, write and commit in one.
  expect(await tripsOf(() => serializable((trx) => addLater(trx, { id: 5, label: "later 5" })))).toBe(1);
  expect(await labels()).toEqual(["item 1", "later 2", "item 3", "later 4", "later 5"]);
});

test("a write marked LATER is seen by the transaction's next statement and undone with the transaction", async () => {
  await serializable(async (trx) => (await add(trx, 1), await addLater(trx, { id: 2, label: "later 2" })));
  const seen = await serializable(async (trx) => {
    await addLater(trx, { id: 3, label: "later 3" });
    return (await trx.selectFrom("items").select("label").where("id", "=", 3).execute()).map((r) => r.label);
  });
  expect(seen).toEqual(["later 3"]);
  await expect(
    serializable(async (trx) => {
      await add(trx, 4);
      await addLater(trx, { id: 5, label: "later 5" });
      throw new Error("undo");
    }),
  ).rejects.toThrow("undo");
  expect(await labels()).toEqual(["item 1", "later 2", "later 3"]);
});

test("a write marked LATER that fails fails the commit: nothing of its transaction is kept", async () => {
  await serializable(async (trx) => (await add(trx, 1), await addLater(trx, { id: 2, label: "later 2" })));
  await expect(serializable(async (trx) => (await add(trx, 3), await addLater(trx, { id: 1, label: "duplicate" })))).rejects.toMatchObject({ code: "23505" });
  await expect(serializable(async (trx) => (await addLater(trx, { id: 1, label: "duplicate" }), await add(trx, 4)))).rejects.toMatchObject({ code: "23505" });
  await serializable(async (trx) => (await add(trx, 5), await addLater(trx, { id: 6, label: "later 6" })));
  expect(await labels()).toEqual(["item 1", "later 2", "item 5", "later 6"]);
});

test("outside a transaction a write marked LATER is sent at once", async () => {
  await serializable(async (trx) => (await add(trx, 1), await addLater(trx, { id: 2, label: "later 2" })));
  expect(await tripsOf(() => addLater(db, { id: 3, label: "at once" }))).toBe(1);
  expect(await labels()).toEqual(["item 1", "later 2", "at once"]);
});
