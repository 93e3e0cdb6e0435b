/** @tier npm */
/**
 * Ctrl-C during `npm run deploy`, in a repository from `mgmt init`, on each engine. The deploy runs in a
 * terminal (a pty from util-linux `script`), and the Ctrl-C is typed into it, so the terminal sends SIGINT
 * to the whole foreground group (npm, its shell, tools/stack.js, mgmt warm, the engine, the provider) as a
 * person's would. The writes are slow (a proxy holds each answer) and the engine makes one at a time, so
 * the Ctrl-C finds some objects made and others not begun. The deploy must wait for the engine's graceful
 * stop and say what it left (mgmt warm's note, not a bare AbortError, nothing labelled [ERROR]); the state
 * must hold every object the API made; and the next plan and deploy make only what is missing.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { stripVTControlCharacters } from "node:util";
import { MgmtClient } from "../../src/client";
import { availableEngines } from "../../src/harness/engine";
import type { RunningServer } from "../../src/harness/serve";
import { FaultProxy } from "../../testkit/fault-proxy";
import { installedScaffold, linkInstalled } from "../support/scaffold-install";
import { teamRepoWork } from "./team-repo-setup";

jest.setTimeout(15 * 60_000);

const w = teamRepoWork("mgmt-interrupt-");
const STACK = "account";
/** The example stack's objects: what it declares, by resource type, and the API's object counted for each. */
const DECLARED = { mgmt_ssh_key: "laptop", mgmt_token: "reporting", mgmt_oauth_client: "Team dashboard", mgmt_tag: "team-platform" } as const;
type Counted = keyof typeof DECLARED;
/** The stack's resources: the four above, the account contact and the profile settings. */
const RESOURCES = 6;
const WRITE_LATENCY_MS = 1500;

/** The terminal's text without its colours (the engine colours for a terminal) and carriage returns. */
const plain = (text: string) => stripVTControlCharacters(text).replace(/\r/g, "");

/** `npm run deploy ARGS` in a terminal; Ctrl-C typed into it once the output shows `when`. */
async function deployInTerminal(repo: string, env: NodeJS.ProcessEnv, when: RegExp): Promise<{ code: number | null; out: string }> {
  const child = spawn("script", ["-qefc", "npm run deploy -- -parallelism=1", "/dev/null"], { cwd: repo, env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  let ended = false;
  const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  void closed.then(() => (ended = true));
  while (!ended && !when.test(plain(out))) await delay(20);
  expect({ endedBeforeTheCtrlC: ended, out: ended ? plain(out).slice(-3000) : "" }).toEqual({ endedBeforeTheCtrlC: false, out: "" });
  child.stdin.write("\x03");
  const code = await closed;
  child.stdin.end();
  return { code, out: plain(out) };
}

/** The ids of the stack's counted objects the API holds, per type, by label. */
async function live(server: RunningServer): Promise<Record<Counted, string[]>> {
  const client = new MgmtClient({ url: server.url, token: server.token });
  // A tag has no id but its label, which the state records as its id.
  const ids = (items: Array<{ id?: number | string; label: string }>, label: string) =>
    items.filter((i) => i.label === label).map((i) => String(i.id ?? i.label));
  const all = async <T>(it: AsyncIterable<T>) => {
    const out: T[] = [];
    for await (const x of it) out.push(x);
    return out;
  };
  try {
    return {
      mgmt_ssh_key: ids(await all(client.listSshKeys()), DECLARED.mgmt_ssh_key),
      mgmt_token: ids(await all(client.listTokens()), DECLARED.mgmt_token),
      mgmt_oauth_client: ids(await all(client.listOAuthClients()), DECLARED.mgmt_oauth_client),
      mgmt_tag: ids(await all(client.listTags()), DECLARED.mgmt_tag),
    };
  } finally {
    await client.close();
  }
}

/** The managed resources the local state records: type → ids. */
function inState(repo: string): Map<string, string[]> {
  const state = JSON.parse(readFileSync(join(repo, `terraform.${STACK}.tfstate`), "utf8")) as {
    resources: Array<{ mode: string; type: string; instances: Array<{ attributes: { id: unknown } }> }>;
  };
  const out = new Map<string, string[]>();
  for (const r of state.resources)
    if (r.mode === "managed" && r.instances.length > 0)
      out.set(
        r.type,
        r.instances.map((i) => String(i.attributes.id)),
      );
  return out;
}

let installed: string;
let providerInstalled = false;

beforeAll(async () => {
  installed = await installedScaffold(w);
}, 30 * 60_000);

afterAll(() => w.cleanUp());

describe.each(availableEngines().map((e) => e.name))("Ctrl-C during npm run deploy, with %s", (engine) => {
  let repo: string;
  let server: RunningServer;
  let proxy: FaultProxy;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    repo = w.scaffold(`interrupt-${engine}`, "--ci", "none", ...(engine === "terraform" ? ["--engine", "terraform"] : []));
    linkInstalled(w, installed, repo);
    if (!providerInstalled) w.ok("npx", ["mgmt", "install-provider"], repo);
    providerInstalled = true;
    // An account of nothing but what this stack makes.
    server = await w.serve("--no-default-fixtures");
    proxy = await FaultProxy.start(server.url);
    env = { ...w.withApi(server), MGMT_URL: proxy.url };
  }, 10 * 60_000);
  afterAll(() => proxy?.close());

  it("waits for the engine's graceful stop, says the state holds what was made, and the next deploy makes only what is missing", async () => {
    proxy.rule = (method) => (method !== "GET" && method !== "HEAD" ? { kind: "hold-answer", ms: WRITE_LATENCY_MS } : undefined);
    const interrupted = await deployInTerminal(repo, env, /Creation complete/);
    await proxy.settled();

    expect(interrupted.code).not.toBe(0);
    expect(interrupted.out).toMatch(/Interrupt received\./);
    // One Ctrl-C, one SIGINT to the engine: the stop stayed graceful.
    expect(interrupted.out).not.toMatch(/Two interrupts received/);
    // Said after the engine's own lines, which npm waited for: the terminal was not handed back mid-stop.
    expect(interrupted.out).toMatch(/mgmt warm: interrupted \(Ctrl-C\)\. The state holds every object created before the stop/);
    expect(interrupted.out.trimEnd()).not.toMatch(/AbortError[^\n]*$/);
    expect(interrupted.out).not.toContain("[ERROR]");

    // Every object the API made is in the state; the Ctrl-C came mid-apply, so some were never begun.
    const recorded = inState(repo);
    const made = await live(server);
    for (const type of Object.keys(DECLARED) as Counted[]) expect({ type, ids: recorded.get(type) ?? [] }).toEqual({ type, ids: made[type] });
    expect(recorded.size).toBeGreaterThan(0);
    expect(recorded.size).toBeLessThan(RESOURCES);

    // Straight to the API from here on: w.ok waits synchronously, and the proxy answers in this process.
    const direct = w.withApi(server);
    const missing = RESOURCES - recorded.size;
    expect(w.ok("npm", ["run", "plan"], repo, direct)).toMatch(new RegExp(`Plan: ${missing} to add, 0 to change, 0 to destroy`));
    w.ok("npm", ["run", "deploy"], repo, direct);
    const after = await live(server);
    expect(Object.fromEntries(Object.entries(after).map(([type, ids]) => [type, ids.length]))).toEqual({
      mgmt_ssh_key: 1,
      mgmt_token: 1,
      mgmt_oauth_client: 1,
      mgmt_tag: 1,
    });
    // What the interrupted deploy made is what the state still calls it: adopted, not replaced.
    for (const type of Object.keys(DECLARED) as Counted[]) for (const id of made[type]) expect(after[type]).toEqual([id]);
  });
});
