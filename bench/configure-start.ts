/**
 * The plugin's CPU time for one configuring start, the kind an engine-started plan has one of and an
 * apply or destroy two or three: GetProviderSchema, ValidateProviderConfig and ConfigureProvider
 * (which loads the API client, undici and zod, and checks the token with one request to a local
 * `mgmt serve`), then Shutdown. The figure is the plugin's own (its exit mark, MGMT_PLUGIN_TRACE),
 * which a busy machine moves far less than wall time. Each build has a code cache folder of its
 * own, made by an untimed first round.
 *
 * BENCH_BASE names another build's folder (a copy of its bin/ and dist/ made before a change): the
 * two builds then alternate, for an A/B in one run. Run with
 * `npm run build && node scripts/run-ts.mjs bench/configure-start.ts` (BENCH_RUNS, default 20).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../src/harness/paths";
import { startServe } from "../src/harness/serve";
import { createProvider } from "../src/provider";
import type { ObjectValue } from "../src/provider/framework/value";
import { PluginHarness } from "../testkit/plugin-harness";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BUILDS: Record<string, string> = {
  "this build": repoPath("bin", "terraform-provider-mgmt"),
  ...(process.env.BENCH_BASE ? { BENCH_BASE: join(process.env.BENCH_BASE, "bin", "terraform-provider-mgmt") } : {}),
};

/** The provider block as the engines send it when it sets nothing: every attribute null, every block empty. */
function emptyProviderConfig(): ObjectValue {
  const { block } = createProvider().schemas().provider;
  return {
    ...Object.fromEntries(Object.keys(block.attributes ?? {}).map((name) => [name, null])),
    ...Object.fromEntries(
      Object.entries(block.block_types ?? {}).map(([name, bt]) => [name, bt.nesting_mode === "list" || bt.nesting_mode === "set" ? [] : null]),
    ),
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function configuringStart(executable: string, dir: string, api: { url: string; token: string }): Promise<number> {
  const trace = join(dir, "trace.jsonl");
  rmSync(trace, { force: true });
  const plugin = await PluginHarness.start({
    executable,
    env: { NODE_EXTRA_CA_CERTS: undefined, MGMT_PLUGIN_CACHE_DIR: join(dir, "cache"), MGMT_PLUGIN_TRACE: trace },
  });
  await plugin.getProviderSchema();
  await plugin.validateProviderConfig(emptyProviderConfig());
  const configured = await plugin.configureProvider(api);
  if (configured.diagnostics.length) throw new Error(`configure: ${JSON.stringify(configured.diagnostics)}`);
  await plugin.shutdown();
  const marks = readFileSync(trace, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; cpuMs?: number });
  return marks.find((m) => m.event === "exit")!.cpuMs!;
}

async function main(): Promise<void> {
  const api = await startServe();
  const root = mkdtempSync(join(tmpdir(), "mgmt-configure-bench-"));
  try {
    const dirs = Object.fromEntries(
      Object.keys(BUILDS).map((name, i) => {
        const dir = join(root, String(i));
        mkdirSync(join(dir, "cache"), { recursive: true, mode: 0o700 });
        return [name, dir];
      }),
    );
    const cpu = new Map<string, number[]>(Object.keys(BUILDS).map((name) => [name, []]));
    for (let round = -1; round < RUNS; round++)
      for (const [name, executable] of Object.entries(BUILDS)) {
        const ms = await configuringStart(executable, dirs[name]!, { url: api.url, token: api.token });
        if (round >= 0) cpu.get(name)!.push(ms);
      }
    process.stdout.write(`plugin CPU time of a configuring start, medians of ${RUNS} alternated runs\n`);
    for (const [name, xs] of cpu) process.stdout.write(`${name}: ${median(xs).toFixed(1)} ms (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})\n`);
  } finally {
    await api.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
