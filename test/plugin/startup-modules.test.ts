/** @tier unit */
/**
 * What node loads in a start of the built plugin that answers the schema and is shut down, traced
 * as the benches trace it: none of node's modules that only the way there would pull in and no
 * answer needs. node:cluster (with child_process and dgram) is what net's listen() loads to ask
 * whether the process is a cluster worker (src/plugin/handshake.ts listenOnPath), perf_hooks what
 * the global `performance` loads (src/plugin/trace.ts), node:os what os.tmpdir() needed
 * (handshake.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { PluginHarness } from "../../testkit/plugin-harness";

jest.setTimeout(60_000);

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "mgmt-startup-modules-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a start that answers the schema loads neither node:cluster, perf_hooks nor node:os", async () => {
  const loaded = join(dir, "loaded.txt");
  // Preloaded by node itself (NODE_OPTIONS is not a V8 flag): at exit, every module node loaded.
  const preload = join(dir, "preload.js");
  writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join("\\n")));`);
  const plugin = await PluginHarness.start({
    executable: repoPath("bin/terraform-provider-mgmt"),
    env: { NODE_OPTIONS: `--require=${preload}`, MGMT_PLUGIN_TRACE: join(dir, "trace.jsonl") },
  });
  expect((await plugin.getProviderSchema()).diagnostics).toEqual([]);
  expect(await plugin.shutdown()).toBe(0);
  const modules = readFileSync(loaded, "utf8").split("\n");
  // The list is node's: the modules the start needs are there.
  expect(modules).toEqual(expect.arrayContaining(["NativeModule net", "NativeModule tls"]));
  expect(modules.filter((m) => /^NativeModule (cluster|child_process|dgram|perf_hooks|os)$/.test(m))).toEqual([]);
});
