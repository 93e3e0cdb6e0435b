/** @tier engine */
/**
 * Applies through each engine on a bad day: a loopback proxy in front of a real mgmt serve drops
 * 30% of create answers after the server committed them, or answers 30% 503 and 30% 429 with
 * Retry-After plus latency spikes on every route. Each apply must succeed, the next plan must
 * show no changes, and the server must hold exactly one object per resource. Seeded, bounded,
 * loopback only.
 */
import { availableEngines, type Engine } from "../../src/harness/engine";
import { stackBehindFaultProxy } from "../e2e/stack";
import { overloaded, seeded, type FaultRule } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";

jest.setTimeout(600_000);

const KEYS = 50;
const TOKENS = 10;
const CLIENTS = 10;

/** A stack of many objects; a patient provider (the retry budget is the user's to set). */
function manyObjects(prefix: string) {
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  return {
    provider: { mgmt: { max_retries: 30, retry_min_delay_ms: 5, retry_max_delay_ms: 50 } },
    resource: {
      mgmt_ssh_key: Object.fromEntries(
        range(KEYS).map((i) => [`k${i}`, { label: `${prefix}-key-${i}`, ssh_key: sshKeyText("ed25519", `${prefix}${i}@faults`) }]),
      ),
      mgmt_token: Object.fromEntries(range(TOKENS).map((i) => [`t${i}`, { label: `${prefix}-token-${i}`, scopes: "events:read_only" }])),
      mgmt_oauth_client: Object.fromEntries(range(CLIENTS).map((i) => [`c${i}`, { label: `${prefix}-client-${i}`, redirect_uri: `https://example.com/${i}` }])),
    },
  };
}

const overloadedNow = (random: () => number): FaultRule => overloaded(random, { retryAfter: 0, delayMs: 150 });
const dropCreates =
  (random: () => number): FaultRule =>
  (method) =>
    method === "POST" && random() < 0.3 ? { kind: "drop-after" } : undefined;

describe.each(availableEngines())("$name applies through a flaky API without duplicates", (engine: Engine) => {
  const faulty = stackBehindFaultProxy(engine);

  async function countByLabel(prefix: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    const count = (label: string) => label.startsWith(`${prefix}-`) && (counts[label] = (counts[label] ?? 0) + 1);
    for await (const k of faulty.stack.client.listSshKeys()) count(k.label);
    for await (const t of faulty.stack.client.listTokens()) count(t.label);
    for await (const c of faulty.stack.client.listOAuthClients()) count(c.label);
    return counts;
  }

  it.each([
    ["drops 30% of create answers after the commit", "dropped", dropCreates, 11],
    ["answers 30% 503 and 30% 429 with latency spikes", "overloaded", overloadedNow, 12],
  ] as const)("%s", async (_title, prefix, rule, seed) => {
    faulty.stack.write(manyObjects(prefix));
    faulty.proxy.rule = rule(seeded(seed));
    const apply = await faulty.stack.run("apply", "-auto-approve", "-parallelism=10");
    expect({ code: apply.code, stderr: apply.stderr }).toEqual({ code: 0, stderr: "" });
    faulty.proxy.rule = () => undefined;

    const counts = await countByLabel(prefix);
    expect(Object.keys(counts)).toHaveLength(KEYS + TOKENS + CLIENTS);
    expect(Object.entries(counts).filter(([, n]) => n !== 1)).toEqual([]);
    await faulty.stack.expectNoChanges();
    // The faults really happened: a run the proxy left alone would prove nothing.
    expect(faulty.proxy.counters.dropped + faulty.proxy.counters.refused).toBeGreaterThan(10);
  });
});
