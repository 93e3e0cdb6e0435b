/** @tier unit */
/**
 * Each test file declares its tier (scripts/test-tiers.mjs, run by `npm run lint`): the tree's files all do, and
 * the check refuses a file that declares none, an unknown one, or `unit` while it reaches an engine or a mgmt
 * process, naming the file and the tier to declare.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { repoPath } from "../../src/harness/paths";

const check = (root?: string) => {
  const r = spawnSync(process.execPath, [repoPath("scripts/test-tiers.mjs"), ...(root === undefined ? [] : ["--root", root])], { encoding: "utf8" });
  return { code: r.status, stderr: r.stderr };
};

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "mgmt-tiers-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

it("passes on the tree", () => {
  expect(check()).toEqual({ code: 0, stderr: "" });
});

it("refuses a file that declares no tier, or one it does not know", () => {
  write("test/new.test.ts", '/** A test from another branch. */\nit("x", () => {});\n');
  write("test/odd.test.ts", '/** @tier slow */\nit("x", () => {});\n');
  write("test/fine.test.ts", '/** @tier unit */\nit("x", () => {});\n');
  const r = check(root);
  expect(r.code).toBe(1);
  expect(r.stderr.trim().split("\n")).toEqual([
    expect.stringMatching(/^test-tiers: test\/new\.test\.ts: declares no tier/),
    expect.stringMatching(/^test-tiers: test\/odd\.test\.ts: declares the unknown tier slow/),
  ]);
});

it("refuses `unit` on a file that starts an engine through a helper, or runs the mgmt CLI", () => {
  write("src/harness/engine.ts", "export const runEngine = 1;\n");
  // (Spelt in pieces, so that this file's own text neither imports the engine nor names the CLI.)
  write("test/support/stack.ts", `export { runEngine } from ${'"../../src/harness/'}engine";\n`);
  write("test/plan.test.ts", '/** @tier unit */\nimport { runEngine } from "./support/stack";\n');
  write("test/help.test.ts", `/** @tier unit */\nconst cli = "${"dist/"}cli.js";\n`);
  write("test/e2e.test.ts", '/** @tier engine */\nimport { runEngine } from "./support/stack";\n');
  const r = check(root);
  expect(r.code).toBe(1);
  expect(r.stderr.trim().split("\n")).toEqual([
    expect.stringMatching(/^test-tiers: test\/help\.test\.ts: declares unit but starts the mgmt CLI .*: declare @tier cli$/),
    expect.stringMatching(
      /^test-tiers: test\/plan\.test\.ts: declares unit but starts OpenTofu or Terraform \(through src\/harness\/engine\.ts\): declare @tier engine$/,
    ),
  ]);
});
