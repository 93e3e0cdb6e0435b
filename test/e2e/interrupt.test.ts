/** @tier engine */
/**
 * An interrupted apply never leaves an object outside state. The engine runs in a process group of
 * its own and gets what a terminal's Ctrl-C sends (SIGINT to the group, plugin included) or what a
 * cancelled job's runner may send (SIGTERM to the group), while every write's answer is slow: a
 * proxy in front of `mgmt serve` passes each create, update and delete on at once, so the server
 * acts on it, and holds the answer a while, so writes the API has made are in flight when the
 * signal lands. (A latency the server adds before acting would not do: the server drops a request
 * whose client went away before its handler ran.) The signal is sent once the proxy has received a
 * number of writes, not after a time. After each interrupted command, once the server has finished
 * every write it got, the API and the state must hold the same objects under the same labels, with
 * no label twice; the last apply converges to a clean plan.
 */
import { spawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { availableEngines, type Engine } from "../../src/harness/engine";
import { FaultProxy, type FaultRule } from "../../testkit/fault-proxy";
import { sshKeyText } from "../../testkit/ssh-keys";
import { EngineStack } from "./stack";

jest.setTimeout(600_000);

const KEYS = 16;
const TOKENS = 10;
const TAGS = 8;
const CLIENTS = 6;
const OBJECTS = KEYS + TOKENS + TAGS + CLIENTS;
/** How long each write's answer is held: long enough that every interrupt finds writes in flight. */
const WRITE_LATENCY_MS = 1000;

/** Creates, updates and deletes: held for WRITE_LATENCY_MS after the server has made them. */
const isWrite = (method: string) => method !== "GET" && method !== "HEAD";
const holdWrites: FaultRule = (method) => (isWrite(method) ? { kind: "hold-answer", ms: WRITE_LATENCY_MS } : undefined);
/** Writes the proxy has received so far. */
const writesSeen = (proxy: FaultProxy) => Object.entries(proxy.counters.byMethod).reduce((n, [method, count]) => n + (isWrite(method) ? count : 0), 0);

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The stack; `suffix` renames what can be renamed in place (the keys are made once, so a rename is no replacement). */
function objects(prefix: string, keys: readonly string[], suffix = "") {
  return {
    resource: {
      mgmt_ssh_key: Object.fromEntries(range(KEYS).map((i) => [`k${i}`, { label: `${prefix}-key-${i}${suffix}`, ssh_key: keys[i]! }])),
      mgmt_token: Object.fromEntries(range(TOKENS).map((i) => [`t${i}`, { label: `${prefix}-token-${i}${suffix}`, scopes: "events:read_only" }])),
      // A tag's label cannot change (a change replaces it): the same in every configuration.
      mgmt_tag: Object.fromEntries(range(TAGS).map((i) => [`g${i}`, { label: `${prefix}-tag-${i}` }])),
      mgmt_oauth_client: Object.fromEntries(
        range(CLIENTS).map((i) => [`c${i}`, { label: `${prefix}-client-${i}${suffix}`, redirect_uri: `https://example.com/${i}` }]),
      ),
    },
  };
}

type Signal = "SIGINT" | "SIGTERM";

describe.each(availableEngines())("$name interrupted mid-apply", (engine: Engine) => {
  let stack: EngineStack;
  const prefix = `int-${engine.name}`;
  const keys = range(KEYS).map((i) => sshKeyText("ed25519", `${prefix}${i}@interrupt`));

  let proxy: FaultProxy;
  /**
   * Runs the engine in a process group of its own and sends `signal` to the whole group once the
   * proxy has received `afterWrites` more writes, as a terminal's Ctrl-C reaches the engine and
   * its plugins alike.
   */
  async function interrupt(signal: Signal, afterWrites: number, ...args: string[]): Promise<void> {
    const before = writesSeen(proxy);
    const child = spawn(engine.binary, [...args, "-no-color"], { cwd: stack.dir, env: stack.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    let ended = false;
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    void exited.then(() => (ended = true));
    while (!ended && writesSeen(proxy) - before < afterWrites) await delay(10);
    // The command must still be writing when the signal comes, or the test proves nothing.
    expect({ endedBeforeTheSignal: ended }).toEqual({ endedBeforeTheSignal: false });
    process.kill(-child.pid!, signal);
    await exited;
    stack.transcript.push(output);
    expect(output).toMatch(/Interrupt received/);
  }

  /** Every object of this test the API holds, by resource type: id and label. */
  async function live(): Promise<Record<string, Record<string, string>>> {
    const out: Record<string, Record<string, string>> = { mgmt_ssh_key: {}, mgmt_token: {}, mgmt_tag: {}, mgmt_oauth_client: {} };
    const mine = (label: string) => label.startsWith(`${prefix}-`);
    for await (const k of stack.client.listSshKeys()) if (mine(k.label)) out.mgmt_ssh_key![String(k.id)] = k.label;
    for await (const t of stack.client.listTokens()) if (mine(t.label)) out.mgmt_token![String(t.id)] = t.label;
    for await (const g of stack.client.listTags()) if (mine(g.label)) out.mgmt_tag![g.label] = g.label;
    for await (const c of stack.client.listOAuthClients()) if (mine(c.label)) out.mgmt_oauth_client![c.id] = c.label;
    return out;
  }

  /** The objects the state holds, the same way. */
  async function held(): Promise<Record<string, Record<string, string>>> {
    const out: Record<string, Record<string, string>> = { mgmt_ssh_key: {}, mgmt_token: {}, mgmt_tag: {}, mgmt_oauth_client: {} };
    for (const [address, values] of Object.entries(await stack.state())) {
      const type = address.split(".")[0]!;
      out[type]![String(values.id)] = String(values.label);
    }
    return out;
  }

  const count = (byType: Record<string, Record<string, string>>) => Object.values(byType).reduce((n, ids) => n + Object.keys(ids).length, 0);

  /**
   * The state and the API hold the same objects under the same labels, and no label twice. Checked
   * once the server has finished every write it received: one the provider gave up on may finish
   * there after the engine exited.
   */
  async function expectStateMatchesApi(): Promise<number> {
    await proxy.settled();
    const [api, state] = [await live(), await held()];
    const missingFrom = (a: typeof api, b: typeof api) =>
      Object.entries(a).flatMap(([type, ids]) =>
        Object.keys(ids)
          .filter((id) => !(id in b[type]!))
          .map((id) => `${type} ${id} ${ids[id]}`),
      );
    const labels = Object.values(api).flatMap((ids) => Object.values(ids));
    const found = {
      // Objects the API holds that no state knows of: orphans nobody will ever delete (or, for a token, use).
      orphans: missingFrom(api, state),
      // Objects the state claims that the API no longer holds.
      gone: missingFrom(state, api),
      // Objects whose label the API changed and the state does not say so (or the reverse).
      relabelled: Object.entries(api).flatMap(([type, ids]) =>
        Object.keys(ids)
          .filter((id) => id in state[type]! && state[type]![id] !== ids[id])
          .map((id) => `${type} ${id}`),
      ),
      duplicates: labels.filter((l, i) => labels.indexOf(l) !== i),
    };
    expect(found).toEqual({ orphans: [], gone: [], relabelled: [], duplicates: [] });
    return count(api);
  }

  beforeAll(async () => {
    stack = await EngineStack.start(engine);
    proxy = await FaultProxy.start(stack.server.url);
    proxy.rule = holdWrites;
    stack.pointAt(proxy.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await stack?.stop();
  });

  it(`keeps every object the API made in state, through interrupted creates, updates and deletes of ${OBJECTS} objects`, async () => {
    stack.write(objects(prefix, keys));

    // Ctrl-C as soon as the first creates are on their way.
    await interrupt("SIGINT", 1, "apply", "-auto-approve", "-parallelism=10");
    expect(await expectStateMatchesApi()).toBeLessThan(OBJECTS);

    // SIGTERM to the group (a cancelled job) in the middle of the creates.
    await interrupt("SIGTERM", 12, "apply", "-auto-approve", "-parallelism=10");
    expect(await expectStateMatchesApi()).toBeLessThan(OBJECTS);

    await stack.ok("apply", "-auto-approve", "-parallelism=10");
    expect(await expectStateMatchesApi()).toBe(OBJECTS);
    await stack.expectNoChanges();

    // Ctrl-C while labels change in place: whichever updates the API made, the state says so.
    stack.write(objects(prefix, keys, "-renamed"));
    await interrupt("SIGINT", 8, "apply", "-auto-approve", "-parallelism=10");
    expect(await expectStateMatchesApi()).toBe(OBJECTS);

    // Ctrl-C while deleting: no object the API deleted is still claimed by the state.
    await interrupt("SIGINT", 8, "destroy", "-auto-approve", "-parallelism=10");
    expect(await expectStateMatchesApi()).toBeGreaterThan(0);

    await stack.ok("apply", "-auto-approve", "-parallelism=10");
    expect(await expectStateMatchesApi()).toBe(OBJECTS);
    await stack.expectNoChanges();
  });
});
