/** @tier engine */
/**
 * Twins named before they are made. An apply that ends without recording what it created (a second
 * Ctrl-C: "Two interrupts received. Exiting immediately."; the provider plugin killed with SIGKILL)
 * leaves objects outside state, and the next apply would make them again beside them. The plan
 * after it warns once per orphan, naming its id, and the warning reaches `mgmt plan-report --log`.
 * The writes are slow as in interrupt.test.ts (a proxy passes each write on at once and holds its
 * answer), so the signal, sent once the proxy has received a number of writes, finds creates the
 * server has made and the engine has not recorded.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { availableEngines, type Engine } from "../../src/harness/engine";
import { FaultProxy, type FaultRule } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";
import { runMgmt } from "../report/run-mgmt";
import { EngineStack } from "./stack";

jest.setTimeout(600_000);

const KEYS = 8;
const TOKENS = 4;
const CLIENTS = 4;
const WRITE_LATENCY_MS = 1500;

const isWrite = (method: string) => method !== "GET" && method !== "HEAD";
const holdWrites: FaultRule = (method) => (isWrite(method) ? { kind: "hold-answer", ms: WRITE_LATENCY_MS } : undefined);
const writesSeen = (proxy: FaultProxy) => Object.entries(proxy.counters.byMethod).reduce((n, [method, count]) => n + (isWrite(method) ? count : 0), 0);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function objects(prefix: string, keys: readonly string[]) {
  return {
    resource: {
      mgmt_ssh_key: Object.fromEntries(range(KEYS).map((i) => [`k${i}`, { label: `${prefix}-key-${i}`, ssh_key: keys[i]! }])),
      mgmt_token: Object.fromEntries(range(TOKENS).map((i) => [`t${i}`, { label: `${prefix}-token-${i}`, scopes: "events:read_only" }])),
      mgmt_oauth_client: Object.fromEntries(
        range(CLIENTS).map((i) => [`c${i}`, { label: `${prefix}-client-${i}`, redirect_uri: `https://example.com/${prefix}/${i}` }]),
      ),
    },
  };
}

/** The processes whose parent is `pid` and whose command line runs the provider plugin. */
function pluginChildren(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("plugin.js")) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

type Interruption = "two SIGINTs" | "SIGKILL to the plugin";

describe.each(availableEngines())("$name: twins of an apply that ended without recording its creates", (engine: Engine) => {
  let stack: EngineStack;
  let proxy: FaultProxy;

  beforeEach(async () => {
    stack = await EngineStack.start(engine);
    proxy = await FaultProxy.start(stack.server.url);
    proxy.rule = holdWrites;
    stack.pointAt(proxy.url);
  });
  afterEach(async () => {
    await proxy?.close();
    await stack?.stop();
  });

  /** Runs apply and ends it the given way once the proxy has received `afterWrites` writes. */
  async function interruptedApply(how: Interruption, afterWrites: number): Promise<string> {
    const child: ChildProcess = spawn(engine.binary, ["apply", "-auto-approve", "-parallelism=10", "-no-color"], {
      cwd: stack.dir,
      env: stack.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    let ended = false;
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    void exited.then(() => (ended = true));
    while (!ended && writesSeen(proxy) < afterWrites) await delay(10);
    expect({ endedBeforeTheSignal: ended }).toEqual({ endedBeforeTheSignal: false });
    if (how === "two SIGINTs") {
      // As a terminal's Ctrl-C, twice: the group, plugin included; the second once the engine has seen the first.
      process.kill(-child.pid!, "SIGINT");
      while (!ended && !/Interrupt received/.test(output)) await delay(5);
      process.kill(-child.pid!, "SIGINT");
    } else {
      const plugins = pluginChildren(child.pid!);
      expect(plugins.length).toBeGreaterThan(0);
      for (const pid of plugins) process.kill(pid, "SIGKILL");
    }
    await exited;
    stack.transcript.push(output);
    return output;
  }

  /** The ids of the objects of this test the API holds that the state does not, per type. */
  async function orphans(prefix: string): Promise<string[]> {
    await proxy.settled();
    const inState = new Set(Object.entries(await stack.state()).map(([address, v]) => `${address.split(".")[0]} ${String(v.id)}`));
    const mine = (label: string) => label.startsWith(`${prefix}-`);
    const live: string[] = [];
    for await (const k of stack.client.listSshKeys()) if (mine(k.label)) live.push(`mgmt_ssh_key ${k.id}`);
    for await (const t of stack.client.listTokens()) if (mine(t.label)) live.push(`mgmt_token ${t.id}`);
    for await (const c of stack.client.listOAuthClients()) if (mine(c.label)) live.push(`mgmt_oauth_client ${c.id}`);
    return live.filter((o) => !inState.has(o)).sort();
  }

  it.each<[Interruption, string]>([
    ["two SIGINTs", "forced"],
    ["SIGKILL to the plugin", "killed"],
  ])("after %s mid-apply, the next plan warns once per orphan, naming its id, and plan-report shows it", async (how, tag) => {
    const prefix = `twin-${engine.name}-${tag}`;
    stack.write(
      objects(
        prefix,
        range(KEYS).map((i) => sshKeyText("ed25519", `${prefix}${i}@twins`)),
      ),
    );
    const output = await interruptedApply(how, 4);
    if (how === "two SIGINTs") expect(output).toMatch(/Two interrupts received/);

    const left = await orphans(prefix);
    // The interruption must have left orphans, or the test proves nothing.
    expect(left.length).toBeGreaterThan(0);

    proxy.rule = () => undefined;
    const planned = await stack.run("plan", "-json", "-out=plan.out");
    expect(planned.code).toBe(0);
    const warned = planned.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { type: string; diagnostic?: { severity: string; summary: string } })
      .filter((l) => l.type === "diagnostic" && l.diagnostic?.severity === "warning")
      .map((l) => /^(mgmt_\w+) "([^"]+)" already exists outside the state$/.exec(l.diagnostic!.summary))
      .filter((m) => m !== null)
      .map((m) => `${m[1]} ${m[2]}`)
      .sort();
    expect(warned).toEqual(left);

    writeFileSync(join(stack.dir, "plan.log.jsonl"), planned.stdout);
    writeFileSync(join(stack.dir, "plan.json"), JSON.stringify(await stack.json("plan.out")));
    const report = await runMgmt(["plan-report", "--plan", join(stack.dir, "plan.json"), "--log", join(stack.dir, "plan.log.jsonl")]);
    expect(report.code).toBe(0);
    for (const orphan of left) {
      const [type, id] = orphan.split(" ");
      // Markdown escapes the underscores of the type.
      expect(report.stdout).toContain(`**${type!.replace(/_/g, "\\_")} "${id}" already exists outside the state**`);
      expect(report.stdout).toContain(`id = "${id}" }`);
    }
  });
});
