/**
 * A plan of N managed SSH keys through OpenTofu: API requests and wall time with batched reads
 * against `batch_reads = false`, side by side in one run. The keys are made through the API and
 * imported once; then each plan refreshes all of them. Requests are counted on the wire by a
 * loopback proxy in front of a real `mgmt serve`. Run with `npm run bench:refresh`
 * (BENCH_SIZES=100,1000,3000 to choose N).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig } from "../src/harness/engine";
import { PROVIDER_SOURCE } from "../src/provider/identity";
import { sshKeyText } from "../test/support/ssh-keys";
import { withLocalApi } from "./local-api";

const SIZES = (process.env.BENCH_SIZES ?? "100,1000").split(",").map(Number);
const tofu = availableEngines().find((e) => e.name === "tofu")!;

async function measure(n: number): Promise<string[]> {
  return withLocalApi(async ({ server, proxy, client, dir }) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push((await client.createSshKey({ label: `k${i}`, ssh_key: sshKeyText("ed25519", `k${i}`) })).id);
    const env = engineEnvironment({ cliConfig: writeCliConfig(dir), url: proxy.url, token: server.token });
    const write = (batch: boolean, imports: boolean) =>
      writeFileSync(
        join(dir, "main.tf.json"),
        JSON.stringify({
          terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
          provider: { mgmt: { batch_reads: batch } },
          resource: { mgmt_ssh_key: Object.fromEntries(ids.map((_id, i) => [`k${i}`, { label: `k${i}`, ssh_key: sshKeyText("ed25519", `k${i}`) }])) },
          ...(imports ? { import: ids.map((id, i) => ({ to: `mgmt_ssh_key.k${i}`, id: String(id) })) } : {}),
        }),
      );
    const run = async (...args: string[]) => {
      const r = await runEngine(tofu, args, dir, env);
      if (r.code !== 0 && !(args[0] === "plan" && r.code === 2)) throw new Error(`tofu ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
    };
    write(true, true);
    await run("apply", "-no-color", "-auto-approve", "-parallelism=10");
    const rows: string[] = [];
    const results: Record<string, { requests: number; ms: number }> = {};
    for (const batch of [true, false, true, false]) {
      write(batch, false);
      proxy.counters.seen.length = 0;
      const start = performance.now();
      await run("plan", "-no-color", "-detailed-exitcode");
      const key = batch ? "batched" : "one GET each";
      const ms = performance.now() - start;
      // Second of each pair kept: the first warms the engine's caches.
      results[key] = { requests: proxy.counters.seen.length, ms };
    }
    for (const [mode, r] of Object.entries(results)) rows.push(`| ${n} | ${mode} | ${r.requests} | ${((100 * r.requests) / n).toFixed(1)}% | ${(r.ms / 1000).toFixed(1)} s |`);
    rows.push(`| ${n} | ratio | ${(results.batched!.requests / results["one GET each"]!.requests).toFixed(3)}x | | ${(results.batched!.ms / results["one GET each"]!.ms).toFixed(2)}x |`);
    return rows;
  });
}

async function main(): Promise<void> {
  const lines = ["| N keys | reads | API requests | of N | plan wall time |", "|---|---|---|---|---|"];
  for (const n of SIZES) lines.push(...(await measure(n)));
  process.stdout.write(lines.join("\n") + "\n");
}

void main();
