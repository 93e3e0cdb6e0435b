/** @tier unit */
/**
 * What node loads in a start of the built plugin that answers the schema and is shut down, traced
 * as the benches trace it: none of node's modules that only the way there would pull in and no
 * answer needs. node:cluster (with child_process and dgram) is what net's listen() loads to ask
 * whether the process is a cluster worker (src/plugin/handshake.ts listenOnPath), perf_hooks what
 * the global `performance` loads (src/plugin/trace.ts), node:os what os.tmpdir() needed
 * (handshake.ts). A start that joins a shared host (src/plugin/shared-join.ts) loads less still:
 * not even node:tls, since the engine talks to the host.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { PluginHarness } from "../../testkit/plugin-harness";

jest.setTimeout(60_000);

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "mgmt-startup-modules-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NEEDLESS = /^NativeModule (cluster|child_process|dgram|perf_hooks|os)$/;

/** One start that answers the schema and is shut down: the modules node loaded, and whether it joined a host. */
async function oneStart(env: Record<string, string>): Promise<{ modules: string[]; joined: boolean }> {
  // Preloaded by node itself (NODE_OPTIONS is not a V8 flag): at exit, every module node loaded, one file per process.
  const preload = join(dir, "preload.js");
  writeFileSync(
    preload,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(dir)} + "/loaded-" + process.pid + ".txt", process.moduleLoadList.join("\\n")));`,
  );
  const trace = join(dir, "trace.jsonl");
  const plugin = await PluginHarness.start({
    executable: repoPath("bin/terraform-provider-mgmt"),
    env: { NODE_OPTIONS: `--require=${preload}`, MGMT_PLUGIN_TRACE: trace, MGMT_PLUGIN_CACHE_DIR: dir, ...env },
  });
  expect((await plugin.getProviderSchema()).diagnostics).toEqual([]);
  expect(await plugin.shutdown()).toBe(0);
  const joined = readFileSync(trace, "utf8")
    .split("\n")
    .filter(Boolean)
    .some((l) => {
      const mark = JSON.parse(l) as { pid: number; event: string; joined?: boolean };
      return mark.pid === plugin.child.pid && mark.event === "line" && mark.joined === true;
    });
  return { modules: readFileSync(join(dir, `loaded-${plugin.child.pid}.txt`), "utf8").split("\n"), joined };
}

it("a start that answers the schema loads neither node:cluster, perf_hooks nor node:os", async () => {
  const { modules, joined } = await oneStart({ MGMT_PLUGIN_SHARED: "off" });
  expect(joined).toBe(false);
  // The list is node's: the modules the start needs are there.
  expect(modules).toEqual(expect.arrayContaining(["NativeModule net", "NativeModule tls"]));
  expect(modules.filter((m) => NEEDLESS.test(m))).toEqual([]);
});

it("a start that leaves a host behind loads node:child_process to start it; one that joins it loads not even node:tls", async () => {
  // The host waits two seconds for another start, then goes.
  const shared = { MGMT_PLUGIN_SHARED: "2" };
  const first = await oneStart(shared);
  expect(first.joined).toBe(false);
  expect(first.modules).toContain("NativeModule child_process");
  expect(first.modules.filter((m) => /^NativeModule (cluster|perf_hooks|os)$/.test(m))).toEqual([]);
  // The host answers once it listens.
  const listening = () => readdirSync(dir).some((f) => f.endsWith(".sock"));
  for (const deadline = Date.now() + 20_000; !listening() && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
  const next = await oneStart(shared);
  expect(next.joined).toBe(true);
  expect(next.modules).toContain("NativeModule net");
  expect(next.modules.filter((m) => NEEDLESS.test(m) || m === "NativeModule tls")).toEqual([]);
});
