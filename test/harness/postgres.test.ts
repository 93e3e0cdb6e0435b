/** @tier postgres */
import { Client } from "pg";
import { startPostgres, type PostgresCluster } from "../../src/harness/postgres";

describe("throwaway PostgreSQL cluster", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 60_000);
  afterAll(() => cluster?.stop());

  it("accepts connections on loopback and runs queries", async () => {
    const client = new Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string }>("select version() as version");
      expect(rows[0]!.version).toMatch(/^PostgreSQL \d+/);
      await client.query("create database scratch");
    } finally {
      await client.end();
    }
    const other = new Client({ connectionString: cluster.urlFor("scratch") });
    await other.connect();
    expect((await other.query("select current_database() as db")).rows[0].db).toBe("scratch");
    await other.end();
  });
});
