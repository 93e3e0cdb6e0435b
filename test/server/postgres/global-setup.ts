/**
 * Global setup of the `server-postgres` jest project: one throwaway cluster for the whole run
 * (initdb + pg_ctl, about a second). Its URL reaches the workers through the environment;
 * `startTestServer` then creates one database per server on it.
 */
import { startPostgres, type PostgresCluster } from "../../../src/harness/postgres";

declare global {
  var mgmtTestCluster: PostgresCluster | undefined;
}

export default async function globalSetup(): Promise<void> {
  const cluster = await startPostgres();
  globalThis.mgmtTestCluster = cluster;
  process.env.MGMT_TEST_PG_URL = cluster.url;
}
