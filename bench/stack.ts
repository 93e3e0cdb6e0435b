/**
 * A stack of N `mgmt_ssh_key` against the same count of `terraform_data`, the engine's own floor:
 * apply, a no-op plan and destroy through each engine, as ratios of medians. The two contenders
 * alternate within each round, so machine noise falls on both alike.
 *
 * Then where the difference goes: one more apply, plan and destroy of N = 100 (BENCH_TRACE_N)
 * with MGMT_PLUGIN_TRACE set, whose marks (src/plugin/trace.ts) give each plugin start: node's
 * start to the handshake line, to the first call, each RPC by method (count and time inside the
 * plugin), the provider loaded, the life of the process and its peak RSS. BENCH_RSS_N (e.g.
 * 3000) adds a traced no-op plan of that many keys for the plugin's peak RSS.
 *
 * The engine-started stack is measured three ways: as a loop runs it, its starts sharing the host
 * the commands before left (src/plugin/shared-host.ts); as the first command of a loop, with a
 * setting of its own that no host has served; and unshared (MGMT_PLUGIN_SHARED=off), every start
 * loading the plugin. A traced run has a setting of its own too (MGMT_PLUGIN_TRACE is part of it),
 * so its apply is a first command. Another contender is the same stack through `mgmt warm`
 * (src/cli/warm.ts): one provider process, started before the rounds, that every command attaches
 * to instead of starting the plugin.
 *
 * BENCH_BASE names another build's folder (a copy of its bin/ and dist/ made before a change): its
 * plugin is then one more engine-started contender, alternated with the rest, for A/B figures in one run.
 * Both builds' starts are then traced in every round, and the table adds the plugin's CPU time per
 * command (all its starts, summed), which a busy machine moves far less than wall time.
 *
 * Run with `npm run bench:stack` (BENCH_SIZES=10,100,1000, BENCH_RUNS=3, BENCH_ENGINES=tofu,terraform; BENCH_TRACE_N=0 skips the traced runs).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type Engine, availableEngines, engineEnvironment, runEngine, writeCliConfig } from "../src/harness/engine";
import { repoPath } from "../src/harness/paths";
import { goPluginClientCertificate } from "../testkit/plugin-harness";
import { floorFirstAnswer } from "./floor-program";
import { PROVIDER_SOURCE } from "../src/provider/identity";
import { sshKeyText } from "../testkit/ssh-keys";
import { type LocalApi, withLocalApi } from "./local-api";

const SIZES = (process.env.BENCH_SIZES ?? "10,100,1000").split(",").filter(Boolean).map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TRACE_N = Number(process.env.BENCH_TRACE_N ?? 100);
const RSS_N = process.env.BENCH_RSS_N ? Number(process.env.BENCH_RSS_N) : undefined;
const wanted = (process.env.BENCH_ENGINES ?? "tofu,terraform").split(",");
const ENGINES = availableEngines().filter((e) => wanted.includes(e.name));
const BASE = process.env.BENCH_BASE;

type Step = "apply" | "plan" | "destroy";
const STEPS: readonly Step[] = ["apply", "plan", "destroy"];
const ARGS: Record<Step, string[]> = {
  apply: ["apply", "-no-color", "-auto-approve", "-input=false"],
  // Exit code 2 would mean the plan found something to change: not a no-op.
  plan: ["plan", "-no-color", "-input=false", "-detailed-exitcode"],
  destroy: ["destroy", "-no-color", "-auto-approve", "-input=false"],
};

type Contender = "terraform_data" | "mgmt_ssh_key" | "first" | "unshared" | "warm" | "base";
const CONTENDERS: readonly Contender[] = ["mgmt_ssh_key", "terraform_data", "first", "unshared", "warm", ...(BASE ? (["base"] as const) : [])];

/**
 * A folder holding N resources of one contender. The keys are made once per N: generating them is not what is measured.
 * The labels are the contender's own: the stacks share one account, and a key with another stack's label and key would
 * be a twin of it (src/provider/framework/twins.ts), each warned about, which no real stack pays.
 */
function writeStack(dir: string, contender: Contender, keys: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  const resources = Object.fromEntries(
    keys.map((key, i) => [
      `r${i}`,
      contender === "terraform_data" ? { input: { label: `k${i}`, ssh_key: key } } : { label: `${contender}-k${i}`, ssh_key: key },
    ]),
  );
  const config =
    contender === "terraform_data"
      ? { resource: { terraform_data: resources } }
      : { terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } }, provider: { mgmt: {} }, resource: { mgmt_ssh_key: resources } };
  writeFileSync(join(dir, "main.tf.json"), JSON.stringify(config));
}

async function run(engine: Engine, step: Step, dir: string, env: NodeJS.ProcessEnv): Promise<number> {
  const start = performance.now();
  const r = await runEngine(engine, ARGS[step], dir, env);
  const ms = performance.now() - start;
  if (r.code !== 0) throw new Error(`${engine.name} ${step} in ${dir} exited ${r.code}: ${r.stderr}${r.stdout.slice(-2000)}`);
  return ms;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

interface Setup {
  readonly api: LocalApi;
  readonly engine: Engine;
  readonly env: NodeJS.ProcessEnv;
  readonly dirs: Record<Contender, string>;
  /** The environment of BENCH_BASE's plugin: its own CLI config, and a code cache folder of its own so that neither build rewrites the other's. */
  readonly baseEnv: NodeJS.ProcessEnv;
}

function setUp(api: LocalApi, engine: Engine, n: number, keys: readonly string[]): Setup {
  const root = join(api.dir, `${engine.name}-${n}`);
  const dirs = {
    terraform_data: join(root, "data"),
    mgmt_ssh_key: join(root, "mgmt"),
    first: join(root, "first"),
    unshared: join(root, "unshared"),
    warm: join(root, "warm"),
    base: join(root, "base"),
  };
  writeStack(dirs.terraform_data, "terraform_data", keys);
  for (const c of ["mgmt_ssh_key", "first", "unshared", "warm"] as const) writeStack(dirs[c], c, keys);
  if (BASE) writeStack(dirs.base, "base", keys);
  // Code caches of the bench's own (made by the untimed round): the user's folder is shared with every other build on the machine.
  const cache = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  };
  const env = {
    ...engineEnvironment({ cliConfig: writeCliConfig(root), url: api.server.url, token: api.server.token }),
    MGMT_PLUGIN_CACHE_DIR: cache("cache"),
  };
  const baseCache = cache("base-cache");
  const baseEnv = BASE
    ? { ...env, TF_CLI_CONFIG_FILE: writeCliConfig(join(root, "base-cli"), "dev", join(BASE, "bin")), MGMT_PLUGIN_CACHE_DIR: baseCache }
    : env;
  return { api, engine, env, dirs, baseEnv };
}

interface Warm {
  readonly reattach: string;
  /** Spawn to the reattach line: paid once per job, not per command. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

/** `mgmt warm` without a command: it prints the variable's value and serves until SIGTERM. */
async function startWarm(env: NodeJS.ProcessEnv): Promise<Warm> {
  const start = performance.now();
  const child = spawn(process.execPath, [repoPath("dist/cli.js"), "warm"], { env, stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out);
    });
    child.once("exit", (code) => reject(new Error(`mgmt warm exited ${code} before it was ready`)));
  });
  const reattach = /^export TF_REATTACH_PROVIDERS='(.*)'$/m.exec(line)?.[1];
  if (!reattach) throw new Error(`mgmt warm printed ${line}`);
  return {
    reattach,
    readyMs: performance.now() - start,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

type Times = Record<Contender, Record<Step, number>>;

/** The marks traced into `file`, each shared host's credited to the starts it served (creditHosts). */
function readMarks(file: string): Mark[] {
  if (!existsSync(file)) return [];
  return creditHosts(
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Mark),
  );
}

/**
 * A start that joined a shared host (src/plugin/shared-host.ts) only relays: its calls run in the
 * host, which marks each session's opening and end (with the host's CPU time since the session
 * before). Each host mark inside a session becomes the joined start's, and the host's CPU time is
 * added to that start's exit, so the breakdown reads per start.
 */
function creditHosts(marks: readonly Mark[]): Mark[] {
  const hosts = new Set(marks.filter((m) => m.event === "shared session").map((m) => m.pid));
  const out = marks.filter((m) => !hosts.has(m.pid));
  for (const host of hosts) {
    const own = marks.filter((m) => m.pid === host);
    for (const open of own.filter((m) => m.event === "shared session")) {
      const guest = open.start!;
      const end = own.find((m) => m.event === "session end" && m.start === guest);
      const within = (m: Mark) => (m.start ?? m.at) >= open.at && (m.start ?? m.at) <= (end?.at ?? Infinity);
      for (const m of own) if (m.event !== "shared session" && m.event !== "session end" && within(m)) out.push({ ...m, pid: guest });
      const exit = out.findIndex((m) => m.pid === guest && m.event === "exit");
      if (end && exit >= 0) out[exit] = { ...out[exit]!, cpuMs: (out[exit]!.cpuMs ?? 0) + (end.cpuMs ?? 0) };
    }
  }
  return out;
}

/** A shared host writes its last session's marks just after its start exits, so after the engine may have: a moment for it, outside any timing. */
const hostsWritten = () => new Promise((resolve) => setTimeout(resolve, 300));

/** The CPU time of every plugin start traced into `file` (their exit marks), summed. */
function pluginCpuMs(file: string): number {
  if (!existsSync(file)) return NaN;
  return readMarks(file).reduce((sum, m) => sum + (m.event === "exit" ? (m.cpuMs ?? 0) : 0), 0);
}

/** Medians of RUNS rounds of apply, plan and destroy, the contenders' order rotating from round to round. */
async function measure(s: Setup): Promise<Times & { warmReadyMs: number; cpu: Record<"mgmt_ssh_key" | "base", Record<Step, number>> }> {
  const cpu: Record<"mgmt_ssh_key" | "base", Record<Step, number[]>> = {
    mgmt_ssh_key: { apply: [], plan: [], destroy: [] },
    base: { apply: [], plan: [], destroy: [] },
  };
  const traceFile = join(s.api.dir, `cpu-${s.engine.name}.jsonl`);
  const times = Object.fromEntries([...CONTENDERS, "base"].map((c) => [c, { apply: [], plan: [], destroy: [] }])) as unknown as Record<
    Contender,
    Record<Step, number[]>
  >;
  const warm = await startWarm(s.env);
  let fresh = 0;
  const envOf = (c: Contender): NodeJS.ProcessEnv => {
    switch (c) {
      case "warm":
        return { ...s.env, TF_REATTACH_PROVIDERS: warm.reattach };
      case "base":
        return s.baseEnv;
      // A setting no host has served: the command's first start finds none, as the first command of a loop does.
      case "first":
        return { ...s.env, MGMT_PLUGIN_SHARED: "5", MGMT_BENCH_FRESH_SETTING: String(++fresh) };
      // Every start loads the plugin itself, as every start did before they shared a process.
      case "unshared":
        return { ...s.env, MGMT_PLUGIN_SHARED: "off" };
      default:
        return s.env;
    }
  };
  try {
    // One untimed round first: the engines' and the OS's caches.
    for (let round = -1; round < RUNS; round++) {
      const shift = (round + CONTENDERS.length) % CONTENDERS.length;
      const order = [...CONTENDERS.slice(shift), ...CONTENDERS.slice(0, shift)];
      for (const step of STEPS)
        for (const c of order) {
          const cpuOf = BASE && (c === "mgmt_ssh_key" || c === "base") ? c : undefined;
          rmSync(traceFile, { force: true });
          const ms = await run(s.engine, step, s.dirs[c], cpuOf ? { ...envOf(c), MGMT_PLUGIN_TRACE: traceFile } : envOf(c));
          if (round >= 0) times[c][step].push(ms);
          if (round >= 0 && cpuOf) {
            await hostsWritten();
            cpu[cpuOf][step].push(pluginCpuMs(traceFile));
          }
        }
    }
  } finally {
    await warm.stop();
  }
  const medians = (c: Contender) => Object.fromEntries(STEPS.map((step) => [step, median(times[c][step])])) as Record<Step, number>;
  return {
    ...(Object.fromEntries([...CONTENDERS, "base" as const].map((c) => [c, medians(c)])) as Times),
    warmReadyMs: warm.readyMs,
    cpu: {
      mgmt_ssh_key: Object.fromEntries(STEPS.map((step) => [step, median(cpu.mgmt_ssh_key[step])])) as Record<Step, number>,
      base: Object.fromEntries(STEPS.map((step) => [step, median(cpu.base[step])])) as Record<Step, number>,
    },
  };
}

// --- the breakdown ----------------------------------------------------------------------

interface Mark {
  readonly pid: number;
  readonly event: string;
  readonly at: number;
  readonly start?: number;
  readonly path?: string;
  readonly maxRssKiB?: number;
  readonly cpuMs?: number;
}

const METHOD_NAMES: Record<string, string> = {
  GetProviderSchema: "schema",
  ValidateProviderConfig: "validate provider",
  ValidateResourceConfig: "validate resource",
  ConfigureProvider: "configure",
  UpgradeResourceState: "upgrade",
  ReadResource: "read",
  PlanResourceChange: "plan",
  ApplyResourceChange: "apply",
  StopProvider: "stop",
  Shutdown: "shutdown",
  StreamStdio: "stdio",
  StartStream: "broker",
};
const methodOf = (path: string) => {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return METHOD_NAMES[name] ?? name;
};

/** One line per plugin start and a summary, from the marks of one engine command. */
function breakdown(marks: readonly Mark[], commandStart: number, commandMs: number, floorMs: number, startFloorMs: number): string[] {
  const byPid = new Map<number, Mark[]>();
  for (const m of marks) byPid.set(m.pid, [...(byPid.get(m.pid) ?? []), m]);
  const starts = [...byPid.values()].sort((a, b) => a.find((m) => m.event === "start")!.at - b.find((m) => m.event === "start")!.at);
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  const lines: string[] = [];
  const totals = new Map<string, { count: number; ms: number }>();
  let loadMs = 0;
  let toFirstAnswer = 0;
  let alive = 0;
  let peakKiB = 0;
  let cpuMs = 0;
  for (const [i, own] of starts.entries()) {
    const at = (event: string) => own.find((m) => m.event === event)?.at;
    const start = at("start")!;
    const rpcs = own.filter((m) => m.event === "rpc").sort((a, b) => a.start! - b.start!);
    const methods = new Map<string, { count: number; ms: number }>();
    for (const r of rpcs) {
      const name = methodOf(r.path!);
      if (name === "stdio" || name === "broker") continue;
      const t = methods.get(name) ?? { count: 0, ms: 0 };
      methods.set(name, { count: t.count + 1, ms: t.ms + (r.at - r.start!) });
      const all = totals.get(name) ?? { count: 0, ms: 0 };
      totals.set(name, { count: all.count + 1, ms: all.ms + (r.at - r.start!) });
    }
    const loaded = own.find((m) => m.event === "provider loaded");
    if (loaded) loadMs += loaded.at - loaded.start!;
    const firstAnswer = rpcs.find((r) => methodOf(r.path!) !== "stdio" && methodOf(r.path!) !== "broker");
    if (firstAnswer) toFirstAnswer += firstAnswer.at - start;
    const exit = own.find((m) => m.event === "exit");
    const end = exit?.at ?? Math.max(...own.map((m) => m.at));
    alive += end - start;
    peakKiB = Math.max(peakKiB, exit?.maxRssKiB ?? 0);
    cpuMs += exit?.cpuMs ?? 0;
    const shutdown = rpcs.find((r) => methodOf(r.path!) === "shutdown");
    const calls = [...methods].map(([name, t]) => `${name} ${t.count > 1 ? `${t.count}x ` : ""}${ms(t.ms)}`).join(", ");
    lines.push(
      `  start ${i + 1} at +${ms(start - commandStart)}: line ${ms(at("line")! - start)}, first answer ${firstAnswer ? ms(firstAnswer.at - start) : "-"}` +
        `${loaded ? `, provider loaded in ${ms(loaded.at - loaded.start!)}` : ""}; ${calls}; alive ${ms(end - start)}${shutdown && exit ? ` (exit ${ms(exit.at - shutdown.at)} after Shutdown)` : ""}, CPU ${ms(exit?.cpuMs ?? 0)}, peak RSS ${((exit?.maxRssKiB ?? 0) / 1024).toFixed(0)} MiB`,
    );
  }
  const perResource = ["read", "plan", "apply", "upgrade", "validate resource"]
    .map((name) => [name, totals.get(name)] as const)
    .filter(([, t]) => t)
    .map(([name, t]) => `${name} ${t!.count}x ${ms(t!.ms)}`)
    .join(", ");
  const configure = totals.get("configure");
  lines.unshift(
    `  ${starts.length} plugin starts; ${seconds(commandMs)} against terraform_data's ${seconds(floorMs)} (+${ms(commandMs - floorMs)}): ` +
      `start to first answer ${ms(toFirstAnswer)} summed, provider loads ${ms(loadMs)}, configure ${configure ? `${configure.count}x ${ms(configure.ms)}` : "-"}, ` +
      `per-resource calls ${perResource || "-"} (time inside the plugin); processes alive ${ms(alive)} summed, CPU ${ms(cpuMs)}; peak RSS ${(peakKiB / 1024).toFixed(0)} MiB`,
  );
  // The engine starts each plugin only after the one before has exited, so no node plugin can
  // take less than this: the engine's own work plus, per start, the floor program's first answer.
  const nodeFloor = floorMs + starts.length * startFloorMs;
  lines.splice(
    1,
    0,
    `  a node plugin's floor: ${seconds(floorMs)} + ${starts.length} starts x ${ms(startFloorMs)} (spawn to an answer of a node program that only listens, ` +
      `prints the line and does the mutual TLS handshake) = ${seconds(nodeFloor)} = ${(nodeFloor / floorMs).toFixed(2)}x terraform_data; this run ${(commandMs / floorMs).toFixed(2)}x`,
  );
  return lines;
}

async function traced(s: Setup, n: number, step: Step, floorMs: number, startFloorMs: number): Promise<string[]> {
  const file = join(s.api.dir, `trace-${s.engine.name}-${step}.jsonl`);
  rmSync(file, { force: true });
  const commandStart = performance.timeOrigin + performance.now();
  const ms = await run(s.engine, step, s.dirs.mgmt_ssh_key, { ...s.env, MGMT_PLUGIN_TRACE: file });
  await hostsWritten();
  const marks = readMarks(file);
  return [`${s.engine.name} ${step === "plan" ? "no-op plan" : step}, N = ${n}:`, ...breakdown(marks, commandStart, ms, floorMs, startFloorMs)];
}

// go-plugin presents a P-521 certificate of its own making; the floor is dialled with the same kind.
const floorClientCert = goPluginClientCertificate();

/**
 * The median of seven starts of the floor program, answering as many bytes as the schema's answer.
 * Without NODE_EXTRA_CA_CERTS: node would read that bundle before any code (~80 ms here), and the
 * plugin's launcher hands it to the API client instead, so the plugin's starts never pay it.
 */
async function startFloorMs(env: NodeJS.ProcessEnv): Promise<number> {
  const bytes = statSync(repoPath("dist", "schema-response.bin")).size;
  const plain = { ...env, NODE_EXTRA_CA_CERTS: undefined }; // undefined removes it (the harness's engineEnv)
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) runs.push(await floorFirstAnswer(plain, bytes, floorClientCert));
  return median(runs);
}

async function main(): Promise<void> {
  const out = (line: string) => process.stdout.write(line + "\n");
  const traces: string[] = [];
  const sizes = [...new Set([...SIZES, ...(TRACE_N > 0 ? [TRACE_N] : []), ...(RSS_N ? [RSS_N] : [])])];
  out(
    `mgmt_ssh_key against terraform_data, medians of ${RUNS} alternated runs (seconds: the engine starting the plugin, its starts sharing the host the loop's commands left` +
      ` (first: a command that finds none; unshared: MGMT_PLUGIN_SHARED=off) / attached to \`mgmt warm\` vs terraform_data = ratios)`,
  );
  out(`| N | step | ${ENGINES.map((e) => e.name).join(" | ")} |`);
  out(`|---|---|${ENGINES.map(() => "---|").join("")}`);
  await withLocalApi(async (api) => {
    for (const n of sizes) {
      const keys = Array.from({ length: n }, (_, i) => sshKeyText("ed25519", `k${i}`));
      const results = new Map<string, Awaited<ReturnType<typeof measure>>>();
      for (const engine of ENGINES) {
        const s = setUp(api, engine, n, keys);
        if (SIZES.includes(n)) results.set(engine.name, await measure(s));
        if (n === TRACE_N || n === RSS_N) {
          // terraform_data's figures from the table, or one run each when this N is not in it.
          const floor = results.get(engine.name)?.terraform_data;
          await run(engine, "apply", s.dirs.mgmt_ssh_key, s.env);
          const floorApply = floor?.apply ?? (await run(engine, "apply", s.dirs.terraform_data, s.env));
          const floorPlan = floor?.plan ?? (await run(engine, "plan", s.dirs.terraform_data, s.env));
          const floorDestroy = floor?.destroy ?? (await run(engine, "destroy", s.dirs.terraform_data, s.env));
          await run(engine, "destroy", s.dirs.mgmt_ssh_key, s.env);
          const startFloor = await startFloorMs(s.env);
          if (n === TRACE_N) {
            traces.push(
              ...(await traced(s, n, "apply", floorApply, startFloor)),
              ...(await traced(s, n, "plan", floorPlan, startFloor)),
              ...(await traced(s, n, "destroy", floorDestroy, startFloor)),
            );
          } else {
            await run(engine, "apply", s.dirs.mgmt_ssh_key, s.env);
            traces.push(`peak RSS, N = ${n}:`, ...(await traced(s, n, "plan", floorPlan, startFloor)).slice(1));
            await run(engine, "destroy", s.dirs.mgmt_ssh_key, s.env);
          }
        }
      }
      if (!SIZES.includes(n)) continue;
      for (const step of STEPS) {
        const cells = ENGINES.map((e) => {
          const r = results.get(e.name)!;
          const ratio = (c: Contender) => `${(r[c][step] / r.terraform_data[step]).toFixed(2)}x`;
          const base = BASE
            ? ` (BENCH_BASE ${seconds(r.base[step])} = ${ratio("base")}; plugin CPU ${r.cpu.mgmt_ssh_key[step].toFixed(0)} ms against BENCH_BASE's ${r.cpu.base[step].toFixed(0)} ms)`
            : "";
          return (
            `${seconds(r.mgmt_ssh_key[step])} (first ${seconds(r.first[step])}, unshared ${seconds(r.unshared[step])}) / warm ${seconds(r.warm[step])} vs ${seconds(r.terraform_data[step])}` +
            ` = ${ratio("mgmt_ssh_key")} (first ${ratio("first")}, unshared ${ratio("unshared")}) / warm ${ratio("warm")}${base}`
          );
        });
        out(`| ${n.toLocaleString("en")} | ${step === "plan" ? "no-op plan" : step} | ${cells.join(" | ")} |`);
      }
      const ready = ENGINES.map((e) => seconds(results.get(e.name)!.warmReadyMs)).join(" | ");
      out(`| ${n.toLocaleString("en")} | \`mgmt warm\` ready, once per job | ${ready} |`);
    }
  });
  if (traces.length === 0) return;
  out("");
  out(`Where the time goes, one traced run each (marks inside the plugin, src/plugin/trace.ts):`);
  for (const line of traces) out(line);
}

void main();
