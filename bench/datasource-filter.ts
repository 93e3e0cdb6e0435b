/**
 * mgmt_events over 2,000 events, 500 of them matching: a filter the API applies (sent as
 * X-Filter) against the same result filtered locally after paging through everything (a regex
 * match, which only the provider applies). Requests and time, side by side, interleaved.
 * Run with `npm run bench:datasources`.
 */
import { performance } from "node:perf_hooks";
import { createProvider } from "../src/provider";
import type { ObjectValue } from "../src/provider/framework/value";
import { ManualClock, silentLogger, startServer } from "../src/server";
import { FaultProxy } from "../testkit/fault-proxy";

const TOTAL = 2_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

async function main(): Promise<void> {
  const clock = new ManualClock(new Date(Date.now() - TOTAL * 60_000).toISOString());
  const server = await startServer({ logger: silentLogger, clock, defaultFixtures: false });
  const proxy = await FaultProxy.start(server.url);
  const accountId = (await server.domain.auth.authenticate(server.token!)).user.account_id;
  const actions = ["tag_create", "compute_boot", "volume_create", "token_create"] as const;
  for (let i = 0; i < TOTAL; i++) {
    clock.advance(60_000);
    await server.domain.events.record({
      actor: null,
      accountId,
      action: actions[i % 4]!,
      entity: { id: i, label: `o${i}`, type: "compute", url: `/v4/objects/${i}` },
    });
  }
  const provider = createProvider({ env: { MGMT_URL: proxy.url, MGMT_TOKEN: server.token! } });
  await provider.configure({});
  const schema = provider.schemas().dataSources.mgmt_events!.block;
  const config = (filter: ObjectValue[]): ObjectValue => ({ ...Object.fromEntries(Object.keys(schema.attributes ?? {}).map((n) => [n, null])), filter });
  const modes = {
    "X-Filter (server)": config([{ name: "action", values: ["tag_create"], match_by: null }]),
    "regex (local)": config([{ name: "action", values: ["^tag_create$"], match_by: "regex" }]),
  };
  const totals: Record<string, { requests: number; ms: number; items: number }> = {};
  for (let run = 0; run < RUNS; run++) {
    for (const [mode, cfg] of Object.entries(modes)) {
      proxy.counters.seen.length = 0;
      const start = performance.now();
      const r = await provider.readDataSource("mgmt_events", cfg);
      const ms = performance.now() - start;
      if (r.diagnostics.length > 0) throw new Error(JSON.stringify(r.diagnostics));
      const t = (totals[mode] ??= { requests: 0, ms: 0, items: 0 });
      t.requests = proxy.counters.seen.length;
      t.items = (r.state!.events as unknown[]).length;
      if (run > 0) t.ms += ms / (RUNS - 1); // the first run warms both
    }
  }
  const lines = ["| filter | matching events | API requests | time (mean of warm runs) |", "|---|---|---|---|"];
  for (const [mode, t] of Object.entries(totals)) lines.push(`| ${mode} | ${t.items} | ${t.requests} | ${t.ms.toFixed(0)} ms |`);
  const [server_, local] = Object.values(totals) as [(typeof totals)[string], (typeof totals)[string]];
  lines.push(`| ratio | | ${(server_.requests / local.requests).toFixed(2)}x | ${(server_.ms / local.ms).toFixed(2)}x |`);
  process.stdout.write(lines.join("\n") + "\n");
  await proxy.close();
  await server.close();
}

void main();
