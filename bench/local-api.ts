/** What the engine benchmarks share: an empty `mgmt serve`, a counting proxy in front of it, a client and a work folder, all removed after. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MgmtClient } from "../src/client";
import { startServe, type RunningServer } from "../src/harness/serve";
import { FaultProxy } from "../testkit/fault-proxy";

export interface LocalApi {
  readonly server: RunningServer;
  readonly proxy: FaultProxy;
  readonly client: MgmtClient;
  readonly dir: string;
}

export async function withLocalApi<T>(use: (api: LocalApi) => Promise<T>): Promise<T> {
  const server = await startServe(["--port", "0", "--db", ":memory:", "--no-default-fixtures"]);
  const proxy = await FaultProxy.start(server.url);
  const client = new MgmtClient({ url: server.url, token: server.token });
  const dir = mkdtempSync(join(tmpdir(), "mgmt-bench-"));
  try {
    return await use({ server, proxy, client, dir });
  } finally {
    await client.close();
    await proxy.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
