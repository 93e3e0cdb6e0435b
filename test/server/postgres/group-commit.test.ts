/** @tier postgres */
/**
 * Group commit on Postgres (src/server/store/throughput/pg-group-commit.ts): the transactions asked for
 * together share one serializable transaction and one commit, each in a savepoint; one that
 * fails on its own fails alone; none is answered before the commit; a group that fails as a
 * whole (a serialization failure, a neighbour's held-back write) has each of its transactions
 * run again alone, each with the outcome it has alone, none written twice.
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { NamedStatements } from "../../../src/server/store/throughput/named-statements";
import { PostgresGroupCommit } from "../../../src/server/store/throughput/pg-group-commit";
import { isRetryable } from "../../../src/server/store/postgres";
import { preparedInsertLater } from "../../../src/server/store/throughput/prepared";
import { freshPostgresDb, type TestDb, testPool } from "../test-store";

interface Tables {
  items: { id: number; label: string };
}

let testDb: TestDb;
let pool: pg.Pool;
let db: Kysely<Tables>;
let other: pg.Client;
/** While set, a commit waits for it (see "nothing is answered before its commit"). */
let commitGate: Promise<void> | undefined;
/** While set, the connection breaks as its commit is sent (see "a commit whose answer is lost"). */
let breakAtCommit = false;
let commitAsked: () => void = () => {};
let group: PostgresGroupCommit<Tables>;
/** Transactions run alone (the store's path, with its retries), counted. */
let aloneRuns = 0;

beforeEach(async () => {
  testDb = await freshPostgresDb();
  // One connection: what one prepares, every transaction finds prepared (held-back writes need it).
  pool = testPool(testDb);
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
      if (breakAtCommit && /^commit/i.test(text ?? "")) {
        breakAtCommit = false;
        const sent = query(...args);
        (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        return sent;
      }
      if (commitGate !== undefined && /^commit/i.test(text ?? "")) {
        commitAsked();
        void commitGate.then(() => query(...args));
        return undefined;
      }
      return query(...args);
    };
  });
  const named = new NamedStatements();
  db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: named.pool(pool) }) });
  await sql`create table items (id int primary key, label text not null)`.execute(db);
  named.startNaming();
  other = new pg.Client({ connectionString: testDb.db });
  await other.connect();
  aloneRuns = 0;
  group = new PostgresGroupCommit<Tables>(db, async (work) => {
    for (;;) {
      aloneRuns++;
      try {
        return await db.transaction().setIsolationLevel("serializable").execute(work);
      } catch (err) {
        if (!isRetryable(err)) throw err;
      }
    }
  });
});
afterEach(async () => {
  commitGate = undefined;
  breakAtCommit = false;
  await other.end();
  await db.destroy();
  await testDb.cleanup();
});

const add = (trx: Kysely<Tables>, id: number, label = `item ${id}`) => trx.insertInto("items").values({ id, label }).execute();
const addLater = preparedInsertLater<Tables>()("items", ["id", "label"]);
const xid = async (trx: Kysely<Tables>) => (await sql<{ x: string }>`select txid_current()::text as x`.execute(trx)).rows[0]!.x;
/** The rows as another connection sees them (committed ones only). */
const committed = async (): Promise<string[]> => (await other.query<{ label: string }>("select label from items order by id")).rows.map((r) => r.label);

/** A transaction that adds item `id` and answers its transaction's id. */
const adds = (id: number) => async (trx: Kysely<Tables>) => (await add(trx, id), await xid(trx));

test("transactions asked for together share one transaction and one commit, each answered with its own result", async () => {
  await group.run((trx) => add(trx, 100));
  const answers = await Promise.all([1, 2, 3, 4, 5].map((id) => group.run(async (trx) => ({ id, x: await adds(id)(trx) }))));
  expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5]);
  // The first starts the group at once; those asked for meanwhile join it (the rest of the turn).
  expect(new Set(answers.slice(1).map((a) => a.x)).size).toBe(1);
  expect(await committed()).toEqual(["item 1", "item 2", "item 3", "item 4", "item 5", "item 100"]);
  expect(aloneRuns).toBe(0);
});

test("a transaction that fails on its own (a rule, a unique violation) fails alone; its neighbours in the group commit", async () => {
  await group.run((trx) => add(trx, 7, "existing"));
  const outcomes = await Promise.allSettled([
    group.run(adds(1)),
    group.run(adds(2)),
    group.run(async (trx) => {
      await add(trx, 3);
      throw new Error("a rule of the domain");
    }),
    group.run(async (trx) => {
      await add(trx, 4);
      await add(trx, 7, "duplicate");
    }),
    group.run(adds(5)),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "rejected", "fulfilled"]);
  expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ message: "a rule of the domain" });
  expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({ code: "23505" });
  // The neighbours after the failures ran in the same transaction as those before them.
  const xids = outcomes.filter((o): o is PromiseFulfilledResult<string> => o.status === "fulfilled").map((o) => o.value);
  expect(xids[1]).toBe(xids[2]);
  expect(await committed()).toEqual(["item 1", "item 2", "item 5", "existing"]);
  expect(aloneRuns).toBe(0);
});

test("nothing is answered before its commit has returned", async () => {
  await group.run((trx) => add(trx, 100));
  let release: () => void = () => {};
  commitGate = new Promise((resolve) => (release = resolve));
  const asked = new Promise<void>((resolve) => (commitAsked = resolve));
  const answered: number[] = [];
  const runs = [1, 2, 3].map((id) => group.run((trx) => add(trx, id)).then(() => answered.push(id)));
  await asked;
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(answered).toEqual([]);
  expect(await committed()).toEqual(["item 100"]);
  release();
  await Promise.all(runs);
  expect(answered.sort()).toEqual([1, 2, 3]);
  expect(await committed()).toEqual(["item 1", "item 2", "item 3", "item 100"]);
});

test("a serialization failure fails the whole group; each of its transactions runs again alone, none written twice", async () => {
  await group.run((trx) => add(trx, 100));
  const runs = new Map<number, number>();
  const counted =
    (id: number, fail = false) =>
    async (trx: Kysely<Tables>) => {
      runs.set(id, (runs.get(id) ?? 0) + 1);
      await add(trx, id);
      if (fail && runs.get(id) === 1) throw Object.assign(new Error("could not serialize access"), { code: "40001" });
      return id;
    };
  const answers = await Promise.all([group.run(counted(1)), group.run(counted(2)), group.run(counted(3, true))]);
  expect(answers).toEqual([1, 2, 3]);
  // 1 and 2 had run in the group that failed, so they ran again; nothing of that group was kept.
  expect([runs.get(1), runs.get(2), runs.get(3)]).toEqual([2, 2, 2]);
  expect(aloneRuns).toBe(3);
  expect(await committed()).toEqual(["item 1", "item 2", "item 3", "item 100"]);
});

test("a real serialization failure against another transaction is retried, without duplicates", async () => {
  await group.run(async (trx) => (await add(trx, 1, "a"), await add(trx, 2, "b")));
  // Write skew: the group reads b and writes a; the other reads a and writes b, and commits first.
  await other.query("begin isolation level serializable");
  await other.query("select label from items where id = 1");
  let wrote: () => void = () => {};
  const written = new Promise<void>((resolve) => (wrote = resolve));
  let committedOther: () => void = () => {};
  const otherCommitted = new Promise<void>((resolve) => (committedOther = resolve));
  const copies = group.run(async (trx) => {
    const b = await trx.selectFrom("items").select("label").where("id", "=", 2).executeTakeFirstOrThrow();
    await trx
      .updateTable("items")
      .set({ label: `a saw ${b.label}` })
      .where("id", "=", 1)
      .execute();
    wrote();
    await otherCommitted;
    await add(trx, 3, "added with it");
  });
  const neighbour = group.run(adds(4));
  await written;
  await other.query("update items set label = 'b changed' where id = 2");
  await other.query("commit");
  committedOther();
  await Promise.all([copies, neighbour]);
  expect(aloneRuns).toBeGreaterThanOrEqual(1);
  expect(await committed()).toEqual(["a saw b changed", "b changed", "added with it", "item 4"]);
});

test("a neighbour's held-back write that fails fails the group; each runs again alone, to its own outcome", async () => {
  // Its first use prepares the held-back insert on the connection; from then on it is held back.
  await group.run((trx) => addLater(trx, { id: 7, label: "existing" }));
  for (const order of ["failing first", "failing last"]) {
    aloneRuns = 0;
    await sql`delete from items where id <> 7`.execute(db);
    const failing = () =>
      group.run(async (trx) => {
        await add(trx, 1);
        // Held back: sent with the next transaction's statement, or with the commit.
        await addLater(trx, { id: 7, label: "duplicate" });
      });
    const jobs = order === "failing first" ? [failing(), group.run(adds(2)), group.run(adds(3))] : [group.run(adds(2)), group.run(adds(3)), failing()];
    const outcomes = await Promise.allSettled(jobs);
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.reason).toMatchObject({ code: "23505" });
    // Every transaction of the failed group ran again alone: those before the failure surfaced and
    // the one whose statement carried it, and those the group had not reached.
    expect(aloneRuns).toBe(3);
    expect(await committed()).toEqual(["item 2", "item 3", "existing"]);
  }
});

test("a commit whose answer is lost fails its transactions without running them again: it may have committed", async () => {
  await group.run((trx) => add(trx, 100));
  breakAtCommit = true;
  const outcomes = await Promise.allSettled([1, 2, 3].map((id) => group.run((trx) => add(trx, id))));
  expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
  expect(aloneRuns).toBe(0);
  // Whether the commit arrived is not known here; either all three are there, or none, once each.
  expect([["item 100"], ["item 1", "item 2", "item 3", "item 100"]]).toContainEqual(await committed());
  // The pool replaces the broken connection: the next group commits.
  await group.run((trx) => add(trx, 4));
  expect(await committed()).toContain("item 4");
});

it("a transaction asked once a group has begun waits for the next: it sees every commit acknowledged before it was asked", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let began!: () => void;
  const begun = new Promise<void>((resolve) => (began = resolve));
  const first = group.run(async (trx) => {
    // The group's first statement: its snapshot is taken here.
    await trx.insertInto("items").values({ id: 1, label: "first" }).execute();
    began();
    await held;
  });
  await begun;
  // A commit acknowledged elsewhere (another server) after the group began ...
  await other.query("insert into items (id, label) values (2, 'elsewhere')");
  // ... and then a read asked here: the running group must not take it.
  const seen = group.run(async (trx) => (await trx.selectFrom("items").select("label").where("id", "=", 2).executeTakeFirst())?.label);
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await first;
  expect(await seen).toBe("elsewhere");
});
