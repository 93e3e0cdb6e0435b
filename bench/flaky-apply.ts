/**
 * An apply of 100 SSH keys through each engine while the API answers 30% 503 and 30% 429 (with
 * Retry-After) plus latency spikes, five times, against the same apply with no faults, in one
 * run: success rate, API requests sent per object, duplicates on the server (must be 0), and
 * time. The provider block is empty: what is measured is what a user gets by default. A
 * loopback proxy in front of a real `mgmt serve` injects the faults. Run with
 * `npm run bench:flaky`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../src/harness/engine";
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS } from "../src/client/retry";
import { PROVIDER_SOURCE } from "../src/provider/identity";
import { overloaded, seeded, type FaultRule } from "../testkit/fault-proxy";
import { sshKeyText } from "../testkit/ssh-keys";
import { withLocalApi } from "./local-api";

const N = Number(process.env.BENCH_OBJECTS ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface Outcome {
  ok: boolean;
  requests: number;
  duplicates: number;
  ms: number;
}

async function applyOnce(engine: Engine, rule: FaultRule, run: number): Promise<Outcome> {
  return withLocalApi(async ({ server, proxy, client, dir }) => {
    writeFileSync(
      join(dir, "main.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
        provider: { mgmt: {} },
        resource: {
          mgmt_ssh_key: Object.fromEntries(Array.from({ length: N }, (_, i) => [`k${i}`, { label: `k${i}`, ssh_key: sshKeyText("ed25519", `r${run}k${i}`) }])),
        },
      }),
    );
    const env = engineEnvironment({ cliConfig: writeCliConfig(dir), url: proxy.url, token: server.token });
    proxy.rule = rule;
    const start = performance.now();
    const r = await runEngine(engine, ["apply", "-no-color", "-auto-approve"], dir, env);
    const ms = performance.now() - start;
    const requests = proxy.counters.seen.length;
    proxy.rule = () => undefined;
    const labels: string[] = [];
    for await (const k of client.listSshKeys()) labels.push(k.label);
    return { ok: r.code === 0, requests, duplicates: labels.length - new Set(labels).size, ms };
  });
}

async function main(): Promise<void> {
  const p = DEFAULT_RETRY_POLICY;
  const lines = [
    `Provider settings: defaults (empty provider block): retries bounded by ${p.maxElapsedMs / 1000} s per operation with no count cap, back-off ${p.baseDelayMs}-${p.maxDelayMs} ms, Retry-After honoured up to ${p.maxRetryAfterMs / 1000} s, ${DEFAULT_TIMEOUT_MS / 1000} s per attempt.`,
  ];
  for (const engine of availableEngines()) {
    const clean: Outcome[] = [];
    const faulty: Outcome[] = [];
    // Interleaved, so machine noise falls on both alike.
    for (let run = 0; run < RUNS; run++) {
      faulty.push(await applyOnce(engine, overloaded(seeded(1000 + run), { retryAfter: 1, delayMs: 300 }), run));
      if (run < 2) clean.push(await applyOnce(engine, () => undefined, run));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const row = (name: string, os: Outcome[]) =>
      `| ${name} | ${os.filter((o) => o.ok).length}/${os.length} | ${(mean(os.map((o) => o.requests)) / N).toFixed(2)} | ${os.reduce((a, o) => a + o.duplicates, 0)} | ${(mean(os.map((o) => o.ms)) / 1000).toFixed(1)} s |`;
    lines.push(
      "",
      `Apply of ${N} SSH keys through ${engine.name}`,
      "| API | first applies succeeded | requests per object | duplicates | mean apply time |",
      "|---|---|---|---|---|",
      row("30% 503, 30% 429 (Retry-After 1 s), 10% +300 ms", faulty),
      row("no faults", clean),
      `| time ratio | | | | ${(mean(faulty.map((o) => o.ms)) / mean(clean.map((o) => o.ms))).toFixed(2)}x |`,
    );
  }
  process.stdout.write(lines.join("\n") + "\n");
}

void main();
