/** @tier engine */
/**
 * Default provider settings ride out a flaky API: an apply of 20 objects (SSH keys and tokens)
 * while a proxy in front of a real `mgmt serve` answers 30% of requests 503 and 30% 429 with
 * Retry-After: 1 succeeds on the first try, with no duplicate, and the next plan shows no changes.
 * Each engine has its own server, proxy and stack, and their applies run at the same time: an
 * apply here is mostly waiting out Retry-After and back-off, so the two take about as long as one.
 */
import { availableEngines } from "../../src/harness/engine";
import { overloaded, seeded } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";
import { stackBehindFaultProxy } from "./stack";

jest.setTimeout(900_000);

const engines = availableEngines();
const faulty = new Map(engines.map((engine) => [engine.name, stackBehindFaultProxy(engine)]));
/** Each engine's apply under faults, to the number of requests the proxy refused; its test awaits it. */
const applies = new Map<string, Promise<number>>();

// After every stack has started (the hooks of stackBehindFaultProxy run first).
beforeAll(() => {
  for (const engine of engines) {
    const { stack, proxy } = faulty.get(engine.name)!;
    stack.write({
      resource: {
        mgmt_ssh_key: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, { label: `fk${i}`, ssh_key: sshKeyText("ed25519", `flaky-${i}`) }])),
        mgmt_token: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`t${i}`, { label: `ft${i}`, scopes: "account:read_only" }])),
      },
    });
    proxy.rule = overloaded(seeded(engine.name === "tofu" ? 11 : 12), { retryAfter: 1 });
    const applied = stack
      .ok("apply", "-auto-approve")
      .then(() => proxy.counters.refused)
      .finally(() => {
        proxy.rule = () => undefined;
      });
    // A failed apply is reported by its engine's test, which awaits it.
    applied.catch(() => undefined);
    applies.set(engine.name, applied);
  }
});

describe.each(engines)("$name with default settings", ({ name }) => {
  it("applies 20 objects on the first try under 30% 503 and 30% 429, with no duplicate", async () => {
    const { stack } = faulty.get(name)!;
    const faulted = await applies.get(name)!;
    // The faults did hit: at least a few of the requests were refused.
    expect(faulted).toBeGreaterThan(5);
    const keys: string[] = [];
    for await (const k of stack.client.listSshKeys()) if (k.label.startsWith("fk")) keys.push(k.label);
    const tokens: string[] = [];
    for await (const t of stack.client.listTokens()) if (t.label.startsWith("ft")) tokens.push(t.label);
    expect(keys.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `fk${i}`).sort());
    expect(tokens.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `ft${i}`).sort());
    await stack.expectNoChanges();
  });
});
