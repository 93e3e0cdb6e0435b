/** @tier cli */
/**
 * Plugin starts sharing one process (src/plugin/shared-host.ts, shared-join.ts), driven as an
 * engine drives them (this test process is their engine) against a real `mgmt serve`: a start that
 * finds no host serves itself and leaves one, later starts with the same setting join it, each
 * start is its own provider instance, the engine's Shutdown, SIGKILL and SIGTERM end a joined start
 * as they end a plugin, and the host goes once it has waited for the next start long enough. Each
 * test has a cache folder of its own, so a host of its own.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { startServe, type RunningServer } from "../../src/harness/serve";
import type { ObjectValue } from "../../src/provider/framework/value";
import { PluginHarness } from "../../testkit/plugin-harness";
import { sshKeyText } from "../../testkit/ssh-keys";
import { liveProxyTokens, seedChildAccount } from "../support/child-account";
import { processAlive } from "../support/process-alive";

const ADMIN_TOKEN = "plugin-shared-admin-7c41";
const LAUNCHER = repoPath("bin/terraform-provider-mgmt");

let server: RunningServer;
let root: string;
const plugins: PluginHarness[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mgmt-shared-"));
  server = await startServe(undefined, { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(async () => {
  await Promise.all(plugins.map((p) => p.kill()));
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

interface Place {
  readonly cache: string;
  readonly trace: string;
  readonly env: Record<string, string | undefined>;
}

let places = 0;
/** A cache folder of its own (so a host of its own) and a trace file. */
function place(env: Record<string, string | undefined> = {}): Place {
  const cache = join(root, `cache-${++places}`);
  mkdirSync(cache, { mode: 0o700 });
  const trace = join(root, `trace-${places}.jsonl`);
  return { cache, trace, env: { MGMT_PLUGIN_CACHE_DIR: cache, MGMT_PLUGIN_TRACE: trace, MGMT_URL: server.url, MGMT_TOKEN: server.token, ...env } };
}
afterEach(() => {
  for (const pid of hosts(root)) process.kill(pid, "SIGKILL");
});

async function start(p: Place, env: Record<string, string | undefined> = {}): Promise<PluginHarness> {
  const plugin = await PluginHarness.start({ executable: LAUNCHER, env: { ...p.env, ...env } });
  plugins.push(plugin);
  return plugin;
}

/** The pids of the hosts whose socket is under `folder`, from their command lines. */
function hosts(folder: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    const at = argv.indexOf("--shared-host");
    if (at >= 0 && argv[at + 1]?.startsWith(folder + "/")) found.push(Number(entry));
  }
  return found;
}

const sockets = (p: Place) => readdirSync(p.cache).filter((f) => f.startsWith("shared-") && f.endsWith(".sock"));

/** Waits for `condition`, checking every 20 ms; fails after 20 s, which no step here comes near. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still not ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Mark {
  readonly pid: number;
  readonly event: string;
  readonly start?: number;
  readonly path?: string;
  readonly joined?: boolean;
}
/** The marks of every process so far; a host writes its own as each session ends. */
const marks = (p: Place): Mark[] =>
  readFileSync(p.trace, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Mark);
const joined = (p: Place, plugin: PluginHarness) => marks(p).some((m) => m.pid === plugin.child.pid && m.event === "line" && m.joined === true);
const callsIn = (p: Place, pid: number) => marks(p).filter((m) => m.pid === pid && m.event === "rpc" && m.path?.startsWith("/tfplugin6."));

/** A first start that leaves a host behind, ended; resolves with the host's pid. */
async function leaveHost(p: Place): Promise<number> {
  const first = await start(p);
  await first.getProviderSchema();
  expect(await first.shutdown()).toBe(0);
  await until(() => hosts(p.cache).length === 1 && sockets(p).length === 1, "one host listening");
  return hosts(p.cache)[0]!;
}

const profileEmail = async (plugin: PluginHarness) => {
  const read = await plugin.readDataSource("mgmt_profile", {});
  expect(read.diagnostics).toEqual([]);
  return read.state!.email;
};

it("a start that finds no host serves itself and leaves one; later starts join it, each its own provider instance", async () => {
  const p = place();
  const first = await start(p);
  expect((await first.configureProvider({ url: null, token: null })).diagnostics).toEqual([]);
  expect(await profileEmail(first)).toBe("admin@example.com");
  expect(await first.shutdown()).toBe(0);
  await until(() => hosts(p.cache).length === 1, "one host");
  const [host] = hosts(p.cache);

  // Two at once, configured differently: one instance each.
  const [a, b] = [await start(p), await start(p)];
  expect((await a.configureProvider({ url: null, token: null })).diagnostics).toEqual([]);
  const refused = await b.configureProvider({ url: null, token: "not-a-token-of-this-server" });
  expect(refused.diagnostics).toEqual([expect.objectContaining({ severity: "error" })]);
  expect(await profileEmail(a)).toBe("admin@example.com");
  expect(await a.shutdown()).toBe(0);
  expect(await b.shutdown()).toBe(0);

  await until(() => marks(p).filter((m) => m.pid === host && m.event === "session end").length === 2, "both sessions ended at the host");
  expect([joined(p, first), joined(p, a), joined(p, b)]).toEqual([false, true, true]);
  expect(callsIn(p, first.child.pid!).length).toBeGreaterThan(0);
  expect(callsIn(p, a.child.pid!)).toEqual([]);
  expect(callsIn(p, host!).map((m) => m.path)).toEqual(expect.arrayContaining(["/tfplugin6.Provider/ConfigureProvider", "/tfplugin6.Provider/ReadDataSource"]));
  // The host waits for the next start.
  expect(hosts(p.cache)).toEqual([host]);
});

it("writes a joined start's log to that start's stderr, where the engine reads it", async () => {
  const p = place({ TF_LOG: "debug" });
  await leaveHost(p);
  const plugin = await start(p);
  expect((await plugin.configureProvider({ url: null, token: null })).diagnostics).toEqual([]);
  await profileEmail(plugin);
  expect(await plugin.shutdown()).toBe(0);
  expect(joined(p, plugin)).toBe(true);
  const lines = plugin.stderr
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);
  expect(lines).toEqual(expect.arrayContaining([expect.objectContaining({ "@level": "debug", "@module": "provider.terraform-provider-mgmt" })]));
  expect(plugin.stderr).not.toContain(server.token);
});

it("a start with another setting does not join, and a hello with another setting is refused without its values", async () => {
  const p = place();
  const host = await leaveHost(p);
  const socket = readFileSync(`/proc/${host}/cmdline`, "utf8").split("\0").at(-2)!;
  const other = await start(p, { TF_LOG: "info" });
  await other.getProviderSchema();
  expect(await other.shutdown()).toBe(0);
  expect(joined(p, other)).toBe(false);

  const hostEnv = Object.fromEntries(
    readFileSync(`/proc/${host}/environ`, "utf8")
      .split("\0")
      .filter(Boolean)
      .map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
  );
  const hello = (env: Record<string, string>) =>
    new Promise<string>((resolve, reject) => {
      const c = createConnection(socket);
      let got = "";
      c.on("data", (d) => {
        got += d.toString();
        if (got.endsWith("\n")) c.destroy();
      });
      c.on("close", () => resolve(got));
      c.on("error", reject);
      c.write(JSON.stringify({ hello: { env, cwd: process.cwd(), pid: process.pid } }) + "\n");
    });
  expect(JSON.parse(await hello({ ...hostEnv, MGMT_TOKEN: "a-secret-of-another" }))).toEqual({
    refused: "this start's environment (MGMT_TOKEN) is not the shared process's",
  });
  // The same setting is served: the answer is a handshake line (plaintext, as this hello brings no engine certificate).
  expect(JSON.parse(await hello(hostEnv))).toEqual({ line: expect.stringMatching(/^1\|6\|unix\|[^|]+\|grpc\n$/) });
});

it("a joined start the engine kills ends its session: the connection closes and what configure acquired is released", async () => {
  const p = place();
  await leaveHost(p);
  const child = await seedChildAccount(server.url, ADMIN_TOKEN, "Shared Kill");
  try {
    const plugin = await start(p);
    expect((await plugin.configureProvider({ child_account: [{ euuid: child.euuid }] })).diagnostics).toEqual([]);
    expect(await liveProxyTokens(child)).toHaveLength(1);
    plugin.child.kill("SIGKILL");
    await plugin.exited;
    await until(async () => (await liveProxyTokens(child)).length === 0, "the proxy token revoked");
    await expect(plugin.readDataSource("mgmt_profile", {})).rejects.toThrow();
  } finally {
    await child.proxy.close();
  }
});

it("a joined start given SIGTERM answers the create it had sent, then exits 0", async () => {
  const p = place();
  await leaveHost(p);
  const plugin = await start(p);
  expect((await plugin.configureProvider({ url: null, token: null })).diagnostics).toEqual([]);
  const config: ObjectValue = { id: null, label: "shared-sigterm", ssh_key: sshKeyText("ed25519", "shared@ci"), created: null };
  const plan = await plugin.planResourceChange("mgmt_ssh_key", { priorState: null, proposedNewState: config, config });
  const fault = (await admin("POST", "/faults", { route: "/v4/profile/sshkeys", method: "POST", latency_ms: 1000 })) as { id: number };
  try {
    const applying = plugin.applyResourceChange("mgmt_ssh_key", { priorState: null, plannedState: plan.plannedState, config });
    const hits = async () => ((await admin("GET", "/faults")) as { data: { id: number; hits: number }[] }).data.find((f) => f.id === fault.id)!.hits;
    await until(async () => (await hits()) > 0, "the create at the server");
    plugin.child.kill("SIGTERM");
    const applied = await applying;
    expect(applied.diagnostics).toEqual([]);
    expect(await plugin.exited).toEqual({ code: 0, signal: null });
    expect(joined(p, plugin)).toBe(true);
    const keys = (await (await fetch(`${server.url}/profile/sshkeys?page_size=500`, { headers: { authorization: `Bearer ${server.token}` } })).json()) as {
      data: { id: number; label: string }[];
    };
    expect(keys.data.filter((k) => k.label === "shared-sigterm").map((k) => String(k.id))).toEqual([applied.newState!.id]);
  } finally {
    await admin("DELETE", `/faults/${fault.id}`);
  }
});

it("the host goes once it has waited MGMT_PLUGIN_SHARED seconds for the next start, its socket with it", async () => {
  const p = place({ MGMT_PLUGIN_SHARED: "1" });
  const host = await leaveHost(p);
  const plugin = await start(p);
  await plugin.getProviderSchema();
  expect(await plugin.shutdown()).toBe(0);
  expect(joined(p, plugin)).toBe(true);
  await until(() => !processAlive(host), "the host gone");
  expect(sockets(p)).toEqual([]);
});

it("a host that died leaves a socket nobody answers: the next start serves itself and a new host takes the name", async () => {
  const p = place();
  const dead = await leaveHost(p);
  process.kill(dead, "SIGKILL");
  await until(() => !processAlive(dead), "the host gone");
  expect(sockets(p)).toHaveLength(1);
  const next = await start(p);
  await next.getProviderSchema();
  expect(await next.shutdown()).toBe(0);
  expect(joined(p, next)).toBe(false);
  await until(() => hosts(p.cache).length === 1, "a new host");
  const after = await start(p);
  await after.getProviderSchema();
  expect(await after.shutdown()).toBe(0);
  expect(joined(p, after)).toBe(true);
});

it("no host without sharing, or without a private cache folder", async () => {
  const off = place({ MGMT_PLUGIN_SHARED: "off" });
  for (let i = 0; i < 2; i++) {
    const plugin = await start(off);
    await plugin.getProviderSchema();
    expect(await plugin.shutdown()).toBe(0);
    expect(joined(off, plugin)).toBe(false);
  }
  const open = place();
  chmodSync(open.cache, 0o777);
  for (let i = 0; i < 2; i++) {
    const plugin = await start(open);
    await plugin.getProviderSchema();
    expect(await plugin.shutdown()).toBe(0);
    expect(joined(open, plugin)).toBe(false);
  }
  expect([...hosts(off.cache), ...hosts(open.cache), ...sockets(off), ...sockets(open)]).toEqual([]);
});

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(server.url.replace(/\/v4$/, "/__admin") + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.ok).toBe(true);
  return res.json();
}
