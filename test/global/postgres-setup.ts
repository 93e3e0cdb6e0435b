/**
 * Global setup of the `server-postgres` jest project: the run's cluster (test/global/run-postgres.ts),
 * started before the workers so its URL reaches them through the environment; `startTestServer` then
 * creates one database per server on it.
 */
import { prepareRunDir } from "./run-dir";
import { runPostgres } from "./run-postgres";

export default async function globalSetup(): Promise<void> {
  prepareRunDir();
  process.env.MGMT_TEST_PG_URL = (await runPostgres()).url;
}
