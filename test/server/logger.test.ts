/** @tier unit */
/**
 * The server's stderr log is written in batches: a turn's lines in one write at its end, at
 * once past the limit, and whatever waits when the process exits (normally, by `process.exit`,
 * or on an uncaught exception) is still written, in order.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { batchedLines } from "../../src/server/logger";

const turn = () => new Promise((resolve) => setImmediate(resolve));

test("the lines of one turn go out in one write, in order, once the turn ends", async () => {
  const writes: string[] = [];
  const batch = batchedLines((chunk) => writes.push(chunk));
  batch.line("a\n");
  batch.line("b\n");
  expect(writes).toEqual([]);
  await turn();
  expect(writes).toEqual(["a\nb\n"]);
  batch.line("c\n");
  await turn();
  expect(writes).toEqual(["a\nb\n", "c\n"]);
});

test("past the limit a batch is written at once; flush writes what waits", () => {
  const writes: string[] = [];
  const batch = batchedLines((chunk) => writes.push(chunk), 10);
  batch.line("12345\n");
  expect(writes).toEqual([]);
  batch.line("67890\n");
  expect(writes).toEqual(["12345\n67890\n"]);
  batch.line("x\n");
  batch.flush();
  expect(writes).toEqual(["12345\n67890\n", "x\n"]);
});

describe("a process that exits with lines waiting writes them all", () => {
  let dir: string;
  let logger: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "mgmt-logger-"));
    logger = join(dir, "logger.js");
    buildSync({
      bundle: true,
      platform: "node",
      format: "cjs",
      entryPoints: [join(__dirname, "../../src/server/logger.ts")],
      outfile: logger,
      logLevel: "silent",
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (end: string) => {
    const program = `const { stderrLogger } = require(${JSON.stringify(logger)});
      for (let i = 0; i < 1000; i++) stderrLogger.info("request", { i });
      ${end}`;
    const child = spawnSync(process.execPath, ["-e", program], { encoding: "utf8" });
    const lines = child.stderr.split("\n").filter((l) => l.startsWith("{"));
    return { status: child.status, numbers: lines.map((l) => (JSON.parse(l) as { i?: number }).i).filter((i) => i !== undefined), stderr: child.stderr };
  };
  const all = Array.from({ length: 1000 }, (_, i) => i);

  test.each([
    ["the end of the program", ""],
    ["process.exit", "process.exit(3);"],
    ["an uncaught exception", "throw new Error('boom');"],
  ])("on %s", (_, end) => {
    const { status, numbers, stderr } = run(end);
    expect(numbers).toEqual(all);
    if (end.startsWith("process.exit")) expect(status).toBe(3);
    if (end.startsWith("throw")) {
      expect(status).toBe(1);
      expect(stderr).toContain("boom");
    }
  });
});
