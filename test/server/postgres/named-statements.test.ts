/** @tier postgres */
/**
 * Statements with parameters go to Postgres by name once naming starts (after migrations):
 * prepared on a connection's first use, then only bound and run, with the same answers; texts
 * past the bound, and queries before naming, go unnamed.
 */
import pg from "pg";
import { MAX_NAMED, NamedStatements } from "../../../src/server/store/throughput/named-statements";
import { freshPostgresDb, type TestDb, testPool } from "../test-store";

let testDb: TestDb;
let pool: pg.Pool;
beforeEach(async () => {
  testDb = await freshPostgresDb();
  pool = testPool(testDb);
});
afterEach(async () => {
  await pool.end();
  await testDb.cleanup();
});

const preparedOn = async (client: pg.PoolClient): Promise<string[]> =>
  (await client.query<{ name: string; statement: string }>("select name, statement from pg_prepared_statements order by name")).rows.map(
    (r) => `${r.name}: ${r.statement}`,
  );

test("a query with parameters is prepared once per connection under its text's name, and answers the same", async () => {
  const named = new NamedStatements();
  const wrapped = named.pool(pool);
  const before = await wrapped.connect();
  expect((await before.query("select $1::int + 1 as n", [1])).rows).toEqual([{ n: 2 }]);
  expect(await preparedOn(before)).toEqual([]);
  before.release();

  named.startNaming();
  for (let i = 0; i < 3; i++) {
    const client = await wrapped.connect();
    expect((await client.query("select $1::int + 1 as n", [i])).rows).toEqual([{ n: i + 1 }]);
    expect((await client.query("select $1::text as t", [`v${i}`])).rows).toEqual([{ t: `v${i}` }]);
    // Without parameters: the simple protocol, unnamed.
    expect((await client.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
    expect(await preparedOn(client)).toEqual(["mgmt_0: select $1::int + 1 as n", "mgmt_1: select $1::text as t"]);
    client.release();
  }
});

test("past the bound, texts go unnamed", async () => {
  const named = new NamedStatements();
  for (let i = 0; i < MAX_NAMED; i++) expect(named.nameOf(`select ${i}`)).toBe(`mgmt_${i}`);
  expect(named.nameOf("select 'one more'")).toBeUndefined();
  expect(named.nameOf("select 0")).toBe("mgmt_0");
});
