/** @tier unit */
/**
 * The peak RSS in the plugin's exit mark (what bench/stack.ts and bench/rpc-rss.ts print) is the
 * plugin's own: getrusage's maxRSS would carry the spawning process's RSS across fork and exec,
 * so a plugin spawned by a large process would report that process's size as its own peak.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { peakRssKiB } from "../../src/plugin/trace";
import { PluginHarness } from "../../testkit/plugin-harness";

jest.setTimeout(60_000);

it("peakRssKiB is this process's high-water mark: at least its RSS now", () => {
  const rssKiB = process.memoryUsage().rss / 1024;
  const peak = peakRssKiB(-1);
  expect(peak).toBeGreaterThanOrEqual(Math.floor(rssKiB * 0.95));
  // Not the fallback: /proc is there on the machines this project runs on.
  expect(peak).not.toBe(-1);
});

it("a plugin spawned by a process of 400 MiB reports its own peak, not its parent's", async () => {
  // Touched pages, so they count in this process's RSS at the spawn.
  const ballast = Buffer.alloc(400 * 1024 * 1024, 1);
  expect(process.memoryUsage().rss / 1048576).toBeGreaterThan(400);
  const dir = mkdtempSync(join(tmpdir(), "trace-peak-"));
  try {
    const trace = join(dir, "trace.jsonl");
    const h = await PluginHarness.start({ executable: repoPath("bin", "terraform-provider-mgmt"), env: { MGMT_PLUGIN_TRACE: trace } });
    await h.getProviderSchema();
    expect(await h.shutdown()).toBe(0);
    const exit = readFileSync(trace, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; maxRssKiB?: number })
      .find((m) => m.event === "exit");
    // A node process that answered the schema: tens of MiB, far below the 400 MiB parent.
    expect(exit?.maxRssKiB).toBeGreaterThan(20 * 1024);
    expect(exit!.maxRssKiB!).toBeLessThan(200 * 1024);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    ballast.fill(0);
  }
});
