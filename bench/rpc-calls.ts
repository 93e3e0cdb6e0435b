/**
 * The plugin's CPU per call, the way an engine spends it: one plugin start over mutual TLS
 * (test/plugin/harness.ts plays go-plugin), the schema, then ValidateResourceConfig,
 * UpgradeResourceState and PlanResourceChange for mgmt_ssh_key, ten in flight at a time as the
 * engines send them, then Shutdown. The CPU comes from the plugin's own exit mark
 * (MGMT_PLUGIN_TRACE); a start that only fetches the schema is run alongside, and the
 * difference divided by the calls is the CPU per call. None of these calls reaches the API.
 *
 * A/B: BENCH_BASE names another build's launcher (e.g. a copy of bin/ and dist/ built from the
 * base commit); the two alternate run by run, so machine noise falls on both alike.
 *   BENCH_BASE=/tmp/base/bin/terraform-provider-mgmt BENCH_RUNS=5 node scripts/run-ts.mjs bench/rpc-calls.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../src/harness/paths";
import { PluginHarness } from "../testkit/plugin-harness";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const IN_FLIGHT = 10;
const TYPE = "mgmt_ssh_key";
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bench@example";

interface Contender {
  readonly name: string;
  readonly executable: string;
}

/** Plugin CPU milliseconds of one start that makes `calls` calls of each kind. */
async function run(executable: string, calls: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "rpc-bench-"));
  const trace = join(dir, "trace.jsonl");
  try {
    const h = await PluginHarness.start({ executable, env: { MGMT_PLUGIN_TRACE: trace } });
    await h.getProviderSchema();
    const config = { id: null, label: "bench", ssh_key: KEY, created: null };
    const state = { id: "42", label: "bench", ssh_key: KEY, created: "2024-01-02T03:04:05Z" };
    const one = async (i: number) => {
      const v = await h.validateResourceConfig(TYPE, { ...config, label: `bench-${i}` });
      const u = await h.upgradeResourceState(TYPE, 0, { ...state, id: String(i) });
      const p = await h.planResourceChange(TYPE, {
        priorState: null,
        proposedNewState: { ...config, label: `bench-${i}` },
        config: { ...config, label: `bench-${i}` },
      });
      const diagnostics = [...v.diagnostics, ...u.diagnostics, ...p.diagnostics];
      if (diagnostics.length > 0) throw new Error(`call ${i}: ${JSON.stringify(diagnostics)}`);
    };
    // Ten lanes, each asking its next call once its last is answered, as an engine's graph walk does.
    let next = 0;
    const lane = async () => {
      while (next < calls) await one(next++);
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const code = await h.shutdown();
    if (code !== 0) throw new Error(`plugin exited with ${code}: ${h.stderr}`);
    const exit = readFileSync(trace, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; cpuMs?: number })
      .find((m) => m.event === "exit");
    if (exit?.cpuMs === undefined) throw new Error("no exit mark in the trace");
    return exit.cpuMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  const contenders: Contender[] = [{ name: "this build", executable: repoPath("bin", "terraform-provider-mgmt") }];
  if (process.env.BENCH_BASE) contenders.unshift({ name: "base", executable: process.env.BENCH_BASE });
  const perCall = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const busy = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const c of contenders) {
      const idle = await run(c.executable, 0);
      const loaded = await run(c.executable, CALLS);
      busy.get(c.name)!.push(loaded);
      perCall.get(c.name)!.push((loaded - idle) / (3 * CALLS));
    }
  }
  console.log(`plugin CPU, ${CALLS} each of validate, upgrade and plan (${IN_FLIGHT} in flight), medians of ${RUNS} alternated runs`);
  for (const c of contenders) {
    console.log(`  ${c.name.padEnd(10)} start CPU ${median(busy.get(c.name)!).toFixed(0)} ms, per call ${(1000 * median(perCall.get(c.name)!)).toFixed(0)} µs`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
