/** @tier unit */
/**
 * The transport loads what the first call needs (`prepare`) after the TLS server is up, while the
 * engine dials. Here, in process: what it loads is there before the first stream, and a failure
 * to load is reported (the plugin then exits) rather than leaving the engine with a server that
 * never answers.
 */
import * as http2 from "node:http2";
import * as net from "node:net";
import * as tls from "node:tls";
import { createSelfSignedCertificate } from "../../src/plugin/tls";
import { createTransport } from "../../src/plugin/transport";

const serverCert = createSelfSignedCertificate();
const clientCert = createSelfSignedCertificate({ curve: "P-521", hash: "sha512", organization: "HashiCorp" });
const silent = () => {};

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5000) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A listening socket whose connections go to the transport, and an h2 client over mutual TLS to it. */
async function serve(transport: ReturnType<typeof createTransport>): Promise<{ session: http2.ClientHttp2Session; close: () => void }> {
  const acceptor = net.createServer((socket) => transport.accept(socket));
  await new Promise<void>((r) => acceptor.listen(0, "127.0.0.1", r));
  const { port } = acceptor.address() as net.AddressInfo;
  const session = http2.connect(`https://localhost:${port}`, {
    createConnection: () =>
      tls.connect({
        host: "127.0.0.1",
        port,
        servername: "localhost",
        ALPNProtocols: ["h2"],
        ca: [serverCert.certPem],
        cert: clientCert.certPem,
        key: clientCert.keyPem,
      }),
  });
  session.on("error", silent);
  return { session, close: () => (session.destroy(), acceptor.close()) };
}

test("what prepare loads is there before the first stream is handled, and prepare runs once", async () => {
  const prepared: string[] = [];
  const transport = createTransport({
    tls: { serverCert, clientCertDer: clientCert.certDer },
    log: silent,
    prepare: () => prepared.push("router"),
    onStream: (stream) => {
      stream.respond({ ":status": 200, "x-prepared": prepared.join(",") });
      stream.end();
    },
  });
  const { session, close } = await serve(transport);
  try {
    for (let i = 0; i < 2; i++) {
      const headers = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        const req = session.request({ ":path": "/" });
        req.on("response", resolve).on("error", reject).resume();
      });
      expect(headers["x-prepared"]).toBe("router");
    }
  } finally {
    close();
  }
});

test("a prepare that throws is reported once, without waiting for a connection, and no connection is served", async () => {
  const failures: unknown[] = [];
  const transport = createTransport({
    tls: { serverCert, clientCertDer: clientCert.certDer },
    log: silent,
    prepare: () => {
      throw new Error("services.js is missing");
    },
    onFailure: (e) => failures.push(e),
    onStream: () => {
      throw new Error("no stream should arrive");
    },
  });
  await until(() => failures.length > 0);
  expect(failures).toEqual([new Error("services.js is missing")]);
  const { session, close } = await serve(transport);
  try {
    const closed = new Promise((resolve) => session.once("close", resolve));
    session.request({ ":path": "/" }).on("error", silent);
    await closed;
    expect(failures).toHaveLength(1);
  } finally {
    close();
  }
});
