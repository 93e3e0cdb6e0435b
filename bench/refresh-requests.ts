/**
 * A plan of N managed objects through OpenTofu: API requests and wall time with batched reads
 * against `batch_reads = false`, side by side in one run, for two workloads: N SSH keys, and N
 * objects spread over SSH keys, tokens, OAuth clients and tags plus the two singletons. The
 * objects are made through the API and imported once; then each plan refreshes all of them and
 * must find nothing to change. Requests are counted on the wire by a loopback proxy in front of a
 * real `mgmt serve`. Run with `npm run bench:refresh` (BENCH_SIZES=100,1000,3000 to choose N).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { MgmtClient } from "../src/client";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig } from "../src/harness/engine";
import { PROVIDER_SOURCE } from "../src/provider/identity";
import { sshKeyText } from "../testkit/ssh-keys";
import { withLocalApi } from "./local-api";

const SIZES = (process.env.BENCH_SIZES ?? "100,1000").split(",").map(Number);
const tofu = availableEngines().find((e) => e.name === "tofu")!;

/** A managed type: how the bench makes its object number i through the API, answering the import id and the configuration that matches it. */
interface Kind {
  readonly type: string;
  make(client: MgmtClient, i: number): Promise<{ id: string; config: Record<string, unknown> }>;
}

const sshKey: Kind = {
  type: "mgmt_ssh_key",
  async make(client, i) {
    const config = { label: `k${i}`, ssh_key: sshKeyText("ed25519", `k${i}`) };
    return { id: String((await client.createSshKey(config)).id), config };
  },
};
const token: Kind = {
  type: "mgmt_token",
  make: async (client, i) => ({ id: String((await client.createToken({ label: `t${i}` })).id), config: { label: `t${i}` } }),
};
const oauthClient: Kind = {
  type: "mgmt_oauth_client",
  async make(client, i) {
    const config = { label: `c${i}`, redirect_uri: `https://app${i}.example.com/callback` };
    return { id: (await client.createOAuthClient(config)).id, config };
  },
};
const tag: Kind = {
  type: "mgmt_tag",
  make: async (client, i) => ({ id: (await client.createTag({ label: `tag-${i}` })).label, config: { label: `tag-${i}` } }),
};
/** Always exists: imported by any id, managing no attribute. */
const singleton = (type: string): Kind => ({ type, make: async () => ({ id: type, config: {} }) });

interface Workload {
  readonly name: string;
  /** N objects, round-robin over these. */
  readonly spread: readonly Kind[];
  /** One object each, besides the N. */
  readonly once: readonly Kind[];
}

const WORKLOADS: Workload[] = [
  { name: "SSH keys", spread: [sshKey], once: [] },
  { name: "mix", spread: [sshKey, token, oauthClient, tag], once: [singleton("mgmt_account_contact"), singleton("mgmt_profile_settings")] },
];

/** `GET /tags/tag-7?page=2` -> `GET /tags/{id}`: the requests of a plan by route. */
function byRoute(seen: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const r of seen) {
    const route = r.replace(/\?.*$/, "").replace(/\/(sshkeys|tokens|oauth-clients|tags)\/[^/]+/, "/$1/{id}");
    counts.set(route, (counts.get(route) ?? 0) + 1);
  }
  return [...counts].map(([route, count]) => `${route} x${count}`).join(", ");
}

async function measure(n: number, workload: Workload): Promise<string[]> {
  return withLocalApi(async ({ server, proxy, client, dir }) => {
    const objects: { type: string; name: string; id: string; config: Record<string, unknown> }[] = [];
    for (let i = 0; i < n; i++) {
      const kind = workload.spread[i % workload.spread.length]!;
      objects.push({ type: kind.type, name: `o${i}`, ...(await kind.make(client, i)) });
    }
    for (const kind of workload.once) objects.push({ type: kind.type, name: "only", ...(await kind.make(client, 0)) });

    const resource: Record<string, Record<string, unknown>> = {};
    for (const o of objects) (resource[o.type] ??= {})[o.name] = o.config;
    const write = (batch: boolean, imports: boolean) =>
      writeFileSync(
        join(dir, "main.tf.json"),
        JSON.stringify({
          terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
          provider: { mgmt: { batch_reads: batch } },
          resource,
          ...(imports ? { import: objects.map((o) => ({ to: `${o.type}.${o.name}`, id: o.id })) } : {}),
        }),
      );
    const env = engineEnvironment({ cliConfig: writeCliConfig(dir), url: proxy.url, token: server.token });
    const run = async (...args: string[]) => {
      const r = await runEngine(tofu, args, dir, env);
      // A plan exits 2 when it would change something: the imports did not match the configuration.
      if (r.code !== 0) throw new Error(`tofu ${args.join(" ")} exited ${r.code}: ${r.stderr}${r.code === 2 ? r.stdout : ""}`);
    };
    write(true, true);
    await run("apply", "-no-color", "-auto-approve", "-parallelism=10");

    const results: Record<string, { requests: readonly string[]; ms: number }> = {};
    for (const batch of [true, false, true, false]) {
      write(batch, false);
      proxy.counters.seen.length = 0;
      const start = performance.now();
      await run("plan", "-no-color", "-detailed-exitcode");
      // Second of each pair kept: the first warms the engine's caches.
      results[batch ? "batched" : "one GET each"] = { requests: [...proxy.counters.seen], ms: performance.now() - start };
    }
    const { batched, "one GET each": each } = results as Record<"batched" | "one GET each", { requests: readonly string[]; ms: number }>;
    const what = `${n} ${workload.name}${workload.once.length > 0 ? ` + ${workload.once.length} singletons` : ""}`;
    const row = (mode: string, r: { requests: readonly string[]; ms: number }) =>
      `| ${what} | ${mode} | ${r.requests.length} | ${((100 * r.requests.length) / n).toFixed(1)}% | ${(r.ms / 1000).toFixed(1)} s | ${byRoute(r.requests)} |`;
    return [
      row("batched", batched),
      row("one GET each", each),
      `| ${what} | ratio | ${(batched.requests.length / each.requests.length).toFixed(3)}x | | ${(batched.ms / each.ms).toFixed(2)}x | |`,
    ];
  });
}

async function main(): Promise<void> {
  // Rows are printed as each size and workload is measured: N = 3,000 takes minutes.
  process.stdout.write("| objects | reads | API requests | of N | plan wall time | requests by route |\n|---|---|---|---|---|---|\n");
  for (const n of SIZES) for (const workload of WORKLOADS) process.stdout.write((await measure(n, workload)).join("\n") + "\n");
}

void main();
