/**
 * Default provider settings ride out a flaky API: an apply of 20 objects (SSH keys and tokens)
 * while a proxy in front of a real `mgmt serve` answers 30% of requests 503 and 30% 429 with
 * Retry-After: 1 succeeds on the first try, with no duplicate, and the next plan shows no changes.
 */
import { availableEngines, type Engine } from "../../src/harness/engine";
import { overloaded, seeded } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";
import { stackBehindFaultProxy } from "./stack";

jest.setTimeout(900_000);

describe.each(availableEngines())("$name with default settings", (engine: Engine) => {
  const faulty = stackBehindFaultProxy(engine);

  it("applies 20 objects on the first try under 30% 503 and 30% 429, with no duplicate", async () => {
    faulty.stack.write({
      resource: {
        mgmt_ssh_key: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, { label: `fk${i}`, ssh_key: sshKeyText("ed25519", `flaky-${i}`) }])),
        mgmt_token: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`t${i}`, { label: `ft${i}`, scopes: "account:read_only" }])),
      },
    });
    faulty.proxy.rule = overloaded(seeded(engine.name === "tofu" ? 11 : 12), { retryAfter: 1 });
    await faulty.stack.ok("apply", "-auto-approve");
    const faulted = faulty.proxy.counters.refused;
    faulty.proxy.rule = () => undefined;
    // The faults did hit: at least a few of the requests were refused.
    expect(faulted).toBeGreaterThan(5);
    const keys: string[] = [];
    for await (const k of faulty.stack.client.listSshKeys()) if (k.label.startsWith("fk")) keys.push(k.label);
    const tokens: string[] = [];
    for await (const t of faulty.stack.client.listTokens()) if (t.label.startsWith("ft")) tokens.push(t.label);
    expect(keys.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `fk${i}`).sort());
    expect(tokens.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `ft${i}`).sort());
    await faulty.stack.expectNoChanges();
  });
});
