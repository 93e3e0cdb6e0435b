/** @tier engine */
/**
 * What the engines ask of the plugin in one command, counted from the marks the plugin writes
 * when MGMT_PLUGIN_TRACE names a file (src/plugin/trace.ts, what bench/stack.ts reads): the
 * provider declares get_provider_schema_optional, so each engine asks for the schema once per
 * command however many times it starts the plugin, and apply, a no-op plan and destroy still
 * work on both engines. The starts after the first join the host it left (src/plugin/shared-host.ts):
 * their calls are the host's marks, and the engines still see every start from its line to its exit.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { availableEngines, type Engine } from "../../src/harness/engine";
import { tfplugin6 } from "../../src/plugin/proto/gen/messages";
import { providerSchemaResponse } from "../../src/plugin/provider-service";
import { createProvider } from "../../src/provider";
import { EngineStack } from "../e2e/stack";
import { sshKeyText } from "../../testkit/ssh-keys";

jest.setTimeout(240_000);

interface Mark {
  readonly pid: number;
  readonly event: string;
  readonly path?: string;
  readonly maxRssKiB?: number;
  readonly joined?: boolean;
  readonly start?: number;
}

it("the schema answer declares get_provider_schema_optional, and plan_destroy off", () => {
  const caps = providerSchemaResponse(createProvider().schemas()).serverCapabilities!;
  expect(caps).toMatchObject({ getProviderSchemaOptional: true, planDestroy: false });
  // And the bytes the build precomputed say the same.
  const built = tfplugin6.GetProviderSchema.Response.decode(readFileSync(join(__dirname, "../../dist/schema-response.bin")));
  expect(built.serverCapabilities?.getProviderSchemaOptional).toBe(true);
});

describe.each(availableEngines())("$name", (engine: Engine) => {
  let stack: EngineStack;
  beforeAll(async () => {
    stack = await EngineStack.start(engine);
    stack.write({
      resource: { mgmt_ssh_key: { a: { label: "a", ssh_key: sshKeyText("ed25519", "a") }, b: { label: "b", ssh_key: sshKeyText("ed25519", "b") } } },
    });
  });
  afterAll(() => stack?.stop());

  /**
   * Runs one command with the marks on; answers them by process. One trace file for every command
   * (emptied before each), so the commands share one setting, and so one host, as a loop's do.
   */
  async function traced(command: string, ...args: string[]): Promise<Map<number, Mark[]>> {
    const file = join(stack.dir, "trace.jsonl");
    rmSync(file, { force: true });
    const env = stack.env;
    stack.env = { ...env, MGMT_PLUGIN_TRACE: file };
    try {
      await stack.ok(command, ...args);
    } finally {
      stack.env = env;
    }
    // A host writes a session's marks as the session ends, just after its start has exited, so possibly after the engine.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const byPid = marksByPid(file);
      const joined = [...byPid.keys()].filter((pid) => byPid.get(pid)!.some((m) => m.event === "line" && m.joined));
      const ended = new Set([...byPid.values()].flat().flatMap((m) => (m.event === "session end" ? [m.start] : [])));
      if (joined.every((pid) => ended.has(pid))) return byPid;
      if (Date.now() > deadline) throw new Error("a joined start's session never ended at its host");
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  function marksByPid(file: string): Map<number, Mark[]> {
    const byPid = new Map<number, Mark[]>();
    if (!existsSync(file)) return byPid;
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
      const mark = JSON.parse(line) as Mark;
      byPid.set(mark.pid, [...(byPid.get(mark.pid) ?? []), mark]);
    }
    return byPid;
  }
  const calls = (byPid: Map<number, Mark[]>, method: string) =>
    [...byPid.values()].flat().filter((m) => m.event === "rpc" && m.path === `/tfplugin6.Provider/${method}`).length;

  it.each([
    ["apply", ["-auto-approve"]],
    ["plan", ["-detailed-exitcode"]],
    ["destroy", ["-auto-approve"]],
  ])("%s asks for the schema once, whatever the number of plugin starts, and the starts after the apply's join its host", async (command, args) => {
    const byPid = await traced(command, ...args);
    const starts = [...byPid.values()].filter((marks) => marks.some((m) => m.event === "line"));
    expect(starts.length).toBeGreaterThanOrEqual(2);
    expect(calls(byPid, "GetProviderSchema")).toBe(1);
    // Every start was marked from its start to its exit, with its peak memory.
    for (const marks of starts) {
      expect(marks.map((m) => m.event)).toEqual(expect.arrayContaining(["start", "line", "exit"]));
      expect(marks.find((m) => m.event === "exit")!.maxRssKiB).toBeGreaterThan(0);
    }
    // The apply's first start found no host for this setting and left one (whether the apply's own later starts
    // joined it depends on how soon it listened); every start of the commands after joined it.
    const joined = starts.filter((marks) => marks.some((m) => m.event === "line" && m.joined));
    if (command !== "apply")
      expect({ joined: joined.length, declined: [...byPid.values()].flat().filter((m) => m.event === "not joined") }).toEqual({
        joined: starts.length,
        declined: [],
      });
    if (command === "apply") expect(calls(byPid, "ApplyResourceChange")).toBe(2);
    if (command === "destroy") expect((await stack.client.listSshKeysPage(1)).data.map((k) => k.label)).not.toEqual(expect.arrayContaining(["a"]));
  });
});
