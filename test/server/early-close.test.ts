/**
 * Issue 44, item 7: a chunk size too large to be a number is a 400 at once, not a 408 once the
 * request time runs out (the test would time out first).
 */
import { connect } from "node:net";
import { startTestServer, type TestServer } from "./helpers";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test("a chunk size past what a number holds is a 400 at once", async () => {
  const first = await new Promise<string>((resolve) => {
    const c = connect(server.port, "127.0.0.1");
    let d = "";
    c.on("data", (b: Buffer) => (d += b.toString("latin1")));
    c.on("close", () => resolve(d.split("\r\n")[0]!));
    c.on("error", () => undefined);
    c.write(
      `POST /v4/tags HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nabc`,
    );
  });
  expect(first).toBe("HTTP/1.1 400 Bad Request");
});
