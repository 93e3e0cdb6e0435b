/**
 * Plugin start to its first answer, as an engine sees it: spawn bin/terraform-provider-mgmt with
 * go-plugin's environment and P-521 client certificate, read the handshake line, dial the
 * address over TLS (ALPN h2, mutual authentication), send GetProviderSchema and time the
 * complete answer. Against a bare `node -e 0` (spawn to exit) in the same run, interleaved so
 * that machine noise falls on all alike, and against a floor: a node process that does only
 * what no plugin can skip (listen, print the line, the same mutual TLS handshake, write as many
 * bytes as the answer). The engines start the plugin two or three times per command and ask for
 * the schema each time, so this is latency a user feels.
 *
 * NODE_EXTRA_CA_CERTS makes every node process parse a CA bundle before it runs any code; the
 * plugin's launcher avoids that (src/provider/extra-ca.ts), bare node cannot. So when it is set,
 * the plugin is also measured without it, where the ratios measure the plugin's own work, the two
 * passes alternated round by round (main). The CPU time to the first answer (/proc schedstat) is
 * the figure least moved by other work on the machine.
 * Run with `npm run bench` (BENCH_RUNS sets the runs per contender).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { ClientHttp2Session } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { repoPath } from "../src/harness/paths";
import { encodeValue } from "../src/plugin/codec";
import { tfplugin6 } from "../src/plugin/proto/gen/messages";
import { createProvider } from "../src/provider";
import { blockType } from "../src/provider/framework/schema";
import { connectH2, goPluginClientCertificate, launchPlugin } from "../testkit/plugin-harness";
import { cpuSoFar, floorFirstAnswer } from "./floor-program";

const RUNS = Number(process.env.BENCH_RUNS ?? 25);
/**
 * BENCH_BASE names another build's launcher (a copy of bin/ and dist/ made before a change):
 * it then runs as one more contender, interleaved with the rest, for A/B figures in one run.
 */
const BASE = process.env.BENCH_BASE;
const clientCert = goPluginClientCertificate(); // go-plugin makes it before the spawn, too

/** ValidateProviderConfig of an empty provider block, the engines' first call after the schema in most starts. */
const VALIDATE_PROVIDER_CONFIG = (() => {
  const { block } = createProvider().schemas().provider;
  // Absent attributes go out as null (the codec fills them); an absent list or set block is empty, as the engines send it.
  const empty = Object.fromEntries(
    Object.entries(block.block_types ?? {}).map(([name, bt]) => [name, bt.nesting_mode === "list" || bt.nesting_mode === "set" ? [] : null]),
  );
  return tfplugin6.ValidateProviderConfig.Request.encode({ config: { msgpack: encodeValue(empty, blockType(block)) } }).finish();
})();

/** Milliseconds from spawn to the process exiting. */
function bareNode(env: NodeJS.ProcessEnv): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore", env });
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

/**
 * Milliseconds from spawn to the handshake line, to the whole GetProviderSchema answer, and to the
 * answer to the ValidateProviderConfig sent after it (which loads the provider); the schema
 * answer's size; and from the plugin's own marks (MGMT_PLUGIN_TRACE, src/plugin/trace.ts), its
 * process start to the line on its own clock and its CPU time to exit. Those two are steadier
 * than the wall-clock figures on a loaded machine, where every process waits for a core.
 */
async function pluginFirstAnswer(env: NodeJS.ProcessEnv, executable = repoPath("bin/terraform-provider-mgmt")): Promise<PluginRun> {
  const trace = join(traceDir, `run-${runs++}.jsonl`);
  const plugin = await launchPlugin({ executable, clientCert, env: { ...env, MGMT_PLUGIN_TRACE: trace } });
  const session = connectH2(plugin.handshake, clientCert);
  try {
    session.on("error", () => {}); // a failure shows up as the call's rejection
    const bytes = await unary(session, "/tfplugin6.Provider/GetProviderSchema", tfplugin6.GetProviderSchema.Request.encode({}).finish());
    const schema = performance.now() - plugin.spawnedAt;
    const schemaCpuMs = cpuSoFar(plugin.child.pid);
    const answer = tfplugin6.GetProviderSchema.Response.decode(bytes);
    if (answer.diagnostics.length > 0 || Object.keys(answer.resourceSchemas).length === 0) {
      throw new Error(`unexpected answer: ${answer.diagnostics.map((d) => d.summary).join("; ") || "no resource schemas"}\n${plugin.output.stderr}`);
    }
    const validation = tfplugin6.ValidateProviderConfig.Response.decode(
      await unary(session, "/tfplugin6.Provider/ValidateProviderConfig", VALIDATE_PROVIDER_CONFIG),
    );
    const validate = performance.now() - plugin.spawnedAt;
    if (validation.diagnostics.length > 0) throw new Error(`ValidateProviderConfig: ${validation.diagnostics.map((d) => d.summary).join("; ")}`);
    session.destroy();
    plugin.child.kill("SIGTERM");
    await plugin.exited;
    const marks = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; at: number; cpuMs?: number });
    const at = (event: string) => marks.find((m) => m.event === event);
    return {
      handshake: plugin.startMs,
      schema,
      validate,
      bytes: bytes.length,
      lineInProcess: at("line")!.at - at("start")!.at,
      schemaCpuMs,
      cpuMs: at("exit")!.cpuMs!,
    };
  } finally {
    session.destroy();
    plugin.child.kill("SIGTERM");
    await plugin.exited;
  }
}

interface PluginRun {
  readonly handshake: number;
  readonly schema: number;
  readonly validate: number;
  readonly bytes: number;
  readonly lineInProcess: number;
  /** CPU time of the process (launcher included: it execs node) when the answer is in, or NaN without /proc. */
  readonly schemaCpuMs: number;
  readonly cpuMs: number;
}

const traceDir = mkdtempSync(join(tmpdir(), "bench-start-"));
let runs = 0;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Pass {
  readonly label: string;
  readonly env: NodeJS.ProcessEnv;
  readonly bare: number[];
  readonly floors: number[];
  readonly floorCpu: number[];
  readonly results: Record<string, PluginRun[]>;
  bytes: number;
}

const contenders = BASE ? ["plugin", "base"] : ["plugin"];
const executables: Record<string, string> = { plugin: repoPath("bin/terraform-provider-mgmt"), base: BASE ?? "" };

/** Warms the file cache (and the plugin's own cache folder) for all, in this pass's environment. */
async function warm(pass: Pass): Promise<void> {
  pass.bytes = (await pluginFirstAnswer(pass.env)).bytes;
  if (BASE) await pluginFirstAnswer(pass.env, BASE);
  await floorFirstAnswer(pass.env, pass.bytes, clientCert);
  await bareNode(pass.env);
}

async function round(pass: Pass): Promise<void> {
  pass.bare.push(await bareNode(pass.env));
  pass.floors.push(await floorFirstAnswer(pass.env, pass.bytes, clientCert, (ms) => pass.floorCpu.push(ms)));
  for (const name of contenders) pass.results[name]!.push(await pluginFirstAnswer(pass.env, executables[name]));
}

function report(pass: Pass): void {
  const b = median(pass.bare);
  const row = (name: string, ms: number, ratio = true) =>
    `  ${name.padEnd(60)}median ${ms.toFixed(1).padStart(6)} ms${ratio ? `  ${(ms / b).toFixed(2)}x` : ""}\n`;
  process.stdout.write(`${pass.label}\n`);
  process.stdout.write(row("bare node -e 0, spawn to exit", b, false));
  process.stdout.write(row(`floor: line, mutual TLS, ${pass.bytes} bytes`, median(pass.floors)));
  process.stdout.write(row("floor, CPU to the last byte", median(pass.floorCpu), false));
  for (const name of contenders) {
    const of = (pick: (r: PluginRun) => number) => median(pass.results[name]!.map(pick));
    const who = name === "plugin" ? "plugin" : "base (BENCH_BASE)";
    process.stdout.write(
      row(
        `${who}, spawn to handshake line`,
        of((r) => r.handshake),
      ),
    );
    process.stdout.write(
      row(
        `${who}, spawn to GetProviderSchema answer`,
        of((r) => r.schema),
      ),
    );
    process.stdout.write(
      row(
        `${who}, then to the ValidateProviderConfig answer`,
        of((r) => r.validate),
      ),
    );
    process.stdout.write(
      row(
        `${who}, in-process: its start to the line`,
        of((r) => r.lineInProcess),
        false,
      ),
    );
    process.stdout.write(
      row(
        `${who}, CPU to the GetProviderSchema answer`,
        of((r) => r.schemaCpuMs),
        false,
      ),
    );
    process.stdout.write(
      row(
        `${who}, in-process: CPU time to exit`,
        of((r) => r.cpuMs),
        false,
      ),
    );
  }
}

/**
 * With NODE_EXTRA_CA_CERTS set, the passes with and without it run round by round, alternating
 * which goes first: run one after the other, the second pass's plugin starts came after a
 * different mix of processes and machine load than the first's, and their in-process figures
 * differed by more than anything the environment changes in the plugin (the launcher hands the
 * variable over before node starts, so both passes run the same code).
 */
async function main() {
  process.stdout.write(`runs per contender: ${RUNS} (interleaved)\n`);
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  const pass = (label: string, env: NodeJS.ProcessEnv): Pass => ({
    label,
    env,
    bare: [],
    floors: [],
    floorCpu: [],
    results: Object.fromEntries(contenders.map((name) => [name, []])),
    bytes: 0,
  });
  const passes = [pass(extraCa ? `with NODE_EXTRA_CA_CERTS=${extraCa}` : "without NODE_EXTRA_CA_CERTS", process.env)];
  if (extraCa) passes.push(pass("without NODE_EXTRA_CA_CERTS", { ...process.env, NODE_EXTRA_CA_CERTS: undefined }));
  for (const p of passes) await warm(p);
  for (let i = 0; i < RUNS; i++) for (const p of i % 2 === 0 ? passes : [...passes].reverse()) await round(p);
  for (const p of passes) report(p);
  rmSync(traceDir, { recursive: true, force: true });
}

void main();
