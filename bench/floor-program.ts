/**
 * The floor of a node plugin's start: a node process that does only what no plugin can skip
 * (listen, print go-plugin's handshake line, the mutual TLS handshake, write as many bytes as an
 * answer without waiting for a request). `npm run bench` sets the plugin's first answer against
 * it, and `npm run bench:stack` multiplies it by the starts of an engine command.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { connect as tlsConnect } from "node:tls";
import { type SelfSignedCertificate, createSelfSignedCertificate } from "../src/plugin/tls";
import { launchPlugin } from "../testkit/plugin-harness";

const floorCert = createSelfSignedCertificate();

// The floor's whole program. Its certificate comes made, and the client's is accepted
// unchecked after the handshake, as the plugin pins it: less work than any plugin does.
// It listens as the plugin does (src/plugin/handshake.ts listenOnPath), without what net's listen()
// loads to ask whether this is a cluster worker, and finds the temporary folder without node:os.
const FLOOR = `
const path = (process.env.TMPDIR || "/tmp") + "/floor-" + process.pid + ".sock";
const server = require("net").createServer();
server._pipeName = path;
server._listen2(path, -1, -1);
server.once("listening", () => {
  require("fs").writeSync(1, "1|6|unix|" + path + "|grpc|" + process.env.FLOOR_CERT_DER + "\\n");
  const tls = require("tls");
  const context = tls.createSecureContext({ cert: process.env.FLOOR_CERT, key: process.env.FLOOR_KEY, ca: [] });
  server.on("connection", (socket) => {
    const secure = new tls.TLSSocket(socket, { isServer: true, secureContext: context, requestCert: true, rejectUnauthorized: false, ALPNProtocols: ["h2"] });
    secure.on("secure", () => secure.write(Buffer.alloc(Number(process.env.FLOOR_BYTES))));
    secure.on("error", () => {});
  });
});
process.on("SIGTERM", () => { server.close(); process.exit(0); });
`;

/**
 * Milliseconds from spawn to `bytes` bytes received over the floor's TLS connection; `onCpu`, when
 * given, gets the floor's CPU time to then (/proc/<pid>/schedstat, NaN without it).
 */
export async function floorFirstAnswer(
  env: NodeJS.ProcessEnv,
  bytes: number,
  clientCert: SelfSignedCertificate,
  onCpu?: (ms: number) => void,
): Promise<number> {
  const started = await launchPlugin({
    executable: process.execPath,
    args: ["-e", FLOOR],
    clientCert,
    env: {
      ...env,
      FLOOR_CERT: floorCert.certPem,
      FLOOR_KEY: floorCert.keyPem,
      FLOOR_CERT_DER: floorCert.certDer.toString("base64").replace(/=+$/, ""),
      FLOOR_BYTES: String(bytes),
    },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const socket = tlsConnect({
        path: started.handshake.address,
        servername: "localhost",
        ALPNProtocols: ["h2"],
        ca: floorCert.certPem,
        cert: clientCert.certPem,
        key: clientCert.keyPem,
      });
      let received = 0;
      socket.on("data", (d: Buffer) => {
        received += d.length;
        if (received >= bytes) resolve();
      });
      socket.on("error", reject);
    });
    const ms = performance.now() - started.spawnedAt;
    onCpu?.(cpuSoFar(started.child.pid));
    return ms;
  } finally {
    started.child.kill("SIGTERM");
    await started.exited;
  }
}

/**
 * A process's CPU time so far, from /proc/<pid>/schedstat (nanoseconds on a CPU, the first field):
 * unlike the wall-clock figures it does not count the time the process waited for a core.
 */
export function cpuSoFar(pid: number | undefined): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return NaN;
  }
}
