/** A port with nothing listening, for tests and benchmarks of a client that cannot connect. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A port on 127.0.0.1 that was just free and has nothing listening: connections are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
