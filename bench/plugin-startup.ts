/**
 * Plugin start to handshake line, against a bare `node -e 0` in the same run, interleaved so
 * that machine noise falls on both alike. The engine starts the plugin several times per
 * command, so this is latency a user feels. Run with `npm run bench`.
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { repoPath } from "../src/harness/paths";
import { createSelfSignedCertificate } from "../src/plugin/tls";

const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const clientCert = createSelfSignedCertificate({ curve: "P-521", hash: "sha512", organization: "HashiCorp" });
const pluginEnv = {
  ...process.env,
  TF_PLUGIN_MAGIC_COOKIE: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
  PLUGIN_PROTOCOL_VERSIONS: "5,6",
  PLUGIN_MIN_PORT: "10000",
  PLUGIN_MAX_PORT: "25000",
  PLUGIN_CLIENT_CERT: clientCert.certPem,
};

/** Milliseconds from spawn to the process exiting. */
function bareNode(): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  return new Promise((resolve) => child.once("exit", () => resolve(performance.now() - start)));
}

/** Milliseconds from spawn to the handshake line on stdout; the plugin is then stopped. */
function pluginHandshake(): Promise<number> {
  const start = performance.now();
  const child = spawn(repoPath("bin/terraform-provider-mgmt"), [], { env: pluginEnv, stdio: ["ignore", "pipe", "ignore"] });
  return new Promise((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) => {
      const elapsed = performance.now() - start;
      if (!chunk.toString().startsWith("1|6|")) reject(new Error(`unexpected handshake: ${chunk}`));
      child.once("exit", () => resolve(elapsed));
      child.kill("SIGTERM");
    });
    child.once("error", reject);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const bare: number[] = [];
  const plugin: number[] = [];
  await pluginHandshake(); // warm the file cache for both
  await bareNode();
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareNode());
    plugin.push(await pluginHandshake());
  }
  const b = median(bare);
  const p = median(plugin);
  process.stdout.write(`runs per side: ${RUNS} (interleaved)\n`);
  process.stdout.write(`bare node -e 0, spawn to exit:       median ${b.toFixed(1)} ms\n`);
  process.stdout.write(`plugin, spawn to handshake line:     median ${p.toFixed(1)} ms\n`);
  process.stdout.write(`ratio plugin / bare node:            ${(p / b).toFixed(2)}x\n`);
}

void main();
