/**
 * The plugin's peak RSS in the starts of a no-op plan of N keys, without an engine: one start
 * that validates N resources (the engines' validate walk), and one that does what Terraform's
 * planning start does (schema, provider validated and configured, N resources validated, then
 * per key UpgradeResourceState, ReadResource and PlanResourceChange), ten calls in flight as the
 * engines send them, against a local `mgmt serve` holding the N keys. Peak RSS and CPU come from
 * the plugin's own exit mark (MGMT_PLUGIN_TRACE).
 *
 * A/B: BENCH_BASE names another build's launcher; the two alternate run by run. BENCH_NODE_FLAGS
 * (sets of node flags, separated by ";") adds a contender per set: this build's bundle under node
 * with those flags.
 *   BENCH_BASE=/tmp/base/bin/terraform-provider-mgmt BENCH_N=3000 BENCH_RUNS=3 node scripts/run-ts.mjs bench/rpc-rss.ts
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../src/harness/paths";
import type { ObjectValue } from "../src/provider/framework/value";
import { PluginHarness } from "../testkit/plugin-harness";
import { sshKeyText } from "../testkit/ssh-keys";
import { type LocalApi, withLocalApi } from "./local-api";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const N = Number(process.env.BENCH_N ?? 3000);
const IN_FLIGHT = 10;
const TYPE = "mgmt_ssh_key";

interface Contender {
  readonly name: string;
  readonly executable: string;
}

interface Figures {
  readonly rssMiB: number;
  readonly cpuMs: number;
}

/** Runs `f(i)` for i in [0, n), ten at a time, each lane taking its next once its last is done. */
async function lanes(n: number, f: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) await f(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

function check(what: string, diagnostics: readonly unknown[]): void {
  if (diagnostics.length > 0) throw new Error(`${what}: ${JSON.stringify(diagnostics)}`);
}

async function withPlugin(executable: string, api: LocalApi, use: (h: PluginHarness) => Promise<void>): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), "rpc-rss-"));
  const trace = join(dir, "trace.jsonl");
  try {
    const h = await PluginHarness.start({ executable, env: { MGMT_PLUGIN_TRACE: trace, MGMT_URL: api.server.url, MGMT_TOKEN: api.server.token } });
    await h.getProviderSchema();
    await use(h);
    const code = await h.shutdown(60000);
    if (code !== 0) throw new Error(`plugin exited with ${code}: ${h.stderr}`);
    const exit = readFileSync(trace, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; cpuMs?: number; maxRssKiB?: number })
      .find((m) => m.event === "exit");
    if (exit?.cpuMs === undefined || exit.maxRssKiB === undefined) throw new Error("no exit mark in the trace");
    return { rssMiB: exit.maxRssKiB / 1024, cpuMs: exit.cpuMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const configOf = (keys: readonly string[], i: number): ObjectValue => ({ id: null, label: `k${i}`, ssh_key: keys[i]!, created: null });

/** Creates the N keys through the plugin (not measured) and returns their states. */
async function createAll(executable: string, api: LocalApi, keys: readonly string[]): Promise<ObjectValue[]> {
  const states: ObjectValue[] = [];
  await withPlugin(executable, api, async (h) => {
    check("configure", (await h.configureProvider({})).diagnostics);
    await lanes(keys.length, async (i) => {
      const config = configOf(keys, i);
      const plan = await h.planResourceChange(TYPE, { priorState: null, proposedNewState: config, config });
      check(`plan ${i}`, plan.diagnostics);
      const applied = await h.applyResourceChange(TYPE, { priorState: null, plannedState: plan.plannedState, config, plannedPrivate: plan.plannedPrivate });
      check(`apply ${i}`, applied.diagnostics);
      states[i] = applied.newState!;
    });
  });
  return states;
}

const validateAll = (h: PluginHarness, keys: readonly string[]) =>
  lanes(keys.length, async (i) => check(`validate ${i}`, (await h.validateResourceConfig(TYPE, configOf(keys, i))).diagnostics));

/** Terraform's planning start of a no-op plan. */
async function planAll(h: PluginHarness, keys: readonly string[], states: readonly ObjectValue[]): Promise<void> {
  check("validate provider", (await h.validateProviderConfig({})).diagnostics);
  await validateAll(h, keys);
  check("configure", (await h.configureProvider({})).diagnostics);
  await lanes(keys.length, async (i) => {
    const upgraded = await h.upgradeResourceState(TYPE, 0, states[i]);
    check(`upgrade ${i}`, upgraded.diagnostics);
    const read = await h.readResource(TYPE, upgraded.upgradedState!);
    check(`read ${i}`, read.diagnostics);
    const config = configOf(keys, i);
    const plan = await h.planResourceChange(TYPE, { priorState: read.newState, proposedNewState: read.newState, config, priorPrivate: read.private });
    check(`plan ${i}`, plan.diagnostics);
    if (plan.requiresReplace.length > 0) throw new Error(`plan ${i} is not a no-op`);
  });
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** A launcher running this build's bundle under node with extra flags. */
function flaggedLauncher(dir: string, i: number, flags: string): string {
  const file = join(dir, `terraform-provider-mgmt-${i}`);
  writeFileSync(file, `#!/bin/sh\nexec node ${flags} "${repoPath("dist", "plugin.js")}" "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

async function main(): Promise<void> {
  const keys = Array.from({ length: N }, (_, i) => sshKeyText("ed25519", `k${i}`));
  const scratch = mkdtempSync(join(tmpdir(), "rpc-rss-bin-"));
  const contenders: Contender[] = [{ name: "this build", executable: repoPath("bin", "terraform-provider-mgmt") }];
  if (process.env.BENCH_BASE) contenders.unshift({ name: "base", executable: process.env.BENCH_BASE });
  for (const [i, flags] of (process.env.BENCH_NODE_FLAGS ?? "").split(";").filter(Boolean).entries())
    contenders.push({ name: flags, executable: flaggedLauncher(scratch, i, flags) });
  const results = new Map(contenders.map((c) => [c.name, { validate: [] as Figures[], plan: [] as Figures[] }]));
  try {
    await withLocalApi(async (api) => {
      const states = await createAll(contenders[contenders.length - 1]!.executable, api, keys);
      for (let r = 0; r < RUNS; r++) {
        for (const c of r % 2 ? [...contenders].reverse() : contenders) {
          const got = results.get(c.name)!;
          got.validate.push(await withPlugin(c.executable, api, (h) => validateAll(h, keys)));
          got.plan.push(await withPlugin(c.executable, api, (h) => planAll(h, keys, states)));
        }
      }
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const show = (fs: readonly Figures[]) =>
    `peak RSS ${median(fs.map((f) => f.rssMiB)).toFixed(0)} MiB (${fs.map((f) => f.rssMiB.toFixed(0)).join(", ")}), CPU ${median(fs.map((f) => f.cpuMs)).toFixed(0)} ms`;
  console.log(`plugin starts of a no-op plan of ${N} keys (${IN_FLIGHT} in flight), medians of ${RUNS} alternated runs`);
  for (const c of contenders) {
    const got = results.get(c.name)!;
    console.log(`  ${c.name}`);
    console.log(`    validate ${N}x:                     ${show(got.validate)}`);
    console.log(`    plan start (validate, configure, upgrade/read/plan ${N}x): ${show(got.plan)}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
