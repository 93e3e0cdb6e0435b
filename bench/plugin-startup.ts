/**
 * Plugin start to its first answer, as an engine sees it: spawn bin/terraform-provider-mgmt with
 * go-plugin's environment and P-521 client certificate, read the handshake line, dial the
 * address over TLS (ALPN h2, mutual authentication), send GetProviderSchema and time the
 * complete answer. Against a bare `node -e 0` (spawn to exit) in the same run, interleaved so
 * that machine noise falls on both alike. The engines start the plugin two or three times per
 * command and ask for the schema each time, so this is latency a user feels.
 * Run with `npm run bench` (BENCH_RUNS sets the runs per side).
 */
import { spawn } from "node:child_process";
import type { ClientHttp2Session } from "node:http2";
import { performance } from "node:perf_hooks";
import { repoPath } from "../src/harness/paths";
import { tfplugin6 } from "../src/plugin/proto/gen/messages";
import { connectH2, goPluginClientCertificate, launchPlugin } from "../test/plugin/harness";

const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const clientCert = goPluginClientCertificate(); // go-plugin makes it before the spawn, too

/** Milliseconds from spawn to the process exiting. */
function bareNode(): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  return new Promise((resolve) => child.once("exit", () => resolve(performance.now() - start)));
}

/** One unary gRPC call on the session; resolves with the response message once the trailers say OK. */
function unary(session: ClientHttp2Session, path: string, request: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const frame = Buffer.alloc(5 + request.length);
    frame.writeUInt32BE(request.length, 1);
    frame.set(request, 5);
    const call = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
    const chunks: Buffer[] = [];
    call.on("data", (d: Buffer) => chunks.push(d));
    call.on("trailers", (trailers) => {
      const body = Buffer.concat(chunks);
      if (trailers["grpc-status"] !== "0") return reject(new Error(`${path}: grpc-status ${trailers["grpc-status"]} ${trailers["grpc-message"] ?? ""}`));
      if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) return reject(new Error(`${path}: not one whole message (${body.length} bytes)`));
      resolve(body.subarray(5));
    });
    call.on("error", reject);
    call.end(frame);
  });
}

/** Milliseconds from spawn to the handshake line and to the whole GetProviderSchema answer. */
async function pluginFirstAnswer(): Promise<{ handshake: number; schema: number }> {
  const plugin = await launchPlugin({ executable: repoPath("bin/terraform-provider-mgmt"), clientCert });
  const session = connectH2(plugin.handshake, clientCert);
  try {
    session.on("error", () => {}); // a failure shows up as the call's rejection
    const bytes = await unary(session, "/tfplugin6.Provider/GetProviderSchema", tfplugin6.GetProviderSchema.Request.encode({}).finish());
    const schema = performance.now() - plugin.spawnedAt;
    const answer = tfplugin6.GetProviderSchema.Response.decode(bytes);
    if (answer.diagnostics.length > 0 || Object.keys(answer.resourceSchemas).length === 0) {
      throw new Error(`unexpected answer: ${answer.diagnostics.map((d) => d.summary).join("; ") || "no resource schemas"}\n${plugin.output.stderr}`);
    }
    return { handshake: plugin.startMs, schema };
  } finally {
    session.destroy();
    plugin.child.kill("SIGTERM");
    await plugin.exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const bare: number[] = [];
  const handshake: number[] = [];
  const schema: number[] = [];
  await pluginFirstAnswer(); // warm the file cache for both
  await bareNode();
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareNode());
    const p = await pluginFirstAnswer();
    handshake.push(p.handshake);
    schema.push(p.schema);
  }
  const b = median(bare);
  const row = (label: string, ms: number, ratio = true) =>
    `${label.padEnd(48)}median ${ms.toFixed(1).padStart(6)} ms${ratio ? `  ${(ms / b).toFixed(2)}x` : ""}\n`;
  process.stdout.write(`runs per side: ${RUNS} (interleaved)\n`);
  process.stdout.write(row("bare node -e 0, spawn to exit", b, false));
  process.stdout.write(row("plugin, spawn to handshake line", median(handshake)));
  process.stdout.write(row("plugin, spawn to GetProviderSchema answer", median(schema)));
}

void main();
