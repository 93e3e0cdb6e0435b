/** Global teardown of the `server-postgres` jest project: stops and deletes the cluster. */
import "./global-setup";

export default async function globalTeardown(): Promise<void> {
  globalThis.mgmtTestCluster?.stop();
  globalThis.mgmtTestCluster = undefined;
}
