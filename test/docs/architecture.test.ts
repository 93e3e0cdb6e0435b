/**
 * docs/architecture.md against the code: its layer diagram names every folder of src/, the lint
 * (eslint.config.mjs) has a rule for every layer it names but the one that wires the rest, and
 * every server folder the lint rules is named in its finer rules; the cli's command list is the
 * dispatcher's.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { repoPath } from "../../src/harness/paths";

const architecture = readFileSync(repoPath("docs/architecture.md"), "utf8");
const lint = readFileSync(repoPath("eslint.config.mjs"), "utf8");
const diagram = /## Layers[\s\S]*?```\n([\s\S]*?)```/.exec(architecture)![1]!;
const finerRules = /The finer rules:([\s\S]*?)\n## /.exec(architecture)![1]!;

/** The layer names the diagram starts its lines with (after the tree's drawing). */
const layers = diagram.split("\n").flatMap((line) => /^[\s│├└─]*([a-z]+)\s{2,}/.exec(line)?.[1] ?? []);
/** The src/ folders the lint has a layer rule for: `layer(["src/provider/**"], ...`. */
const linted = [...lint.matchAll(/layer\(\s*\[\s*"src\/([a-z-]+(?:\/[a-z-]+)?)/g)].map((m) => m[1]!);
/** The one layer without import rules: it wires the parts together. */
const WIRING = "cli";

it("names every folder of src/ in the layer diagram", () => {
  const folders = readdirSync(repoPath("src")).filter((f) => statSync(repoPath("src", f)).isDirectory());
  expect(layers.sort()).toEqual(folders.sort());
});

it("has a lint rule for every layer but the one that wires the parts", () => {
  const ruled = new Set(linted.map((path) => path.split("/")[0]));
  expect(layers.filter((l) => !ruled.has(l)).sort()).toEqual([WIRING]);
});

it("names in its finer rules every server folder the lint rules", () => {
  const serverFolders = [...new Set(linted.filter((p) => p.startsWith("server/")).map((p) => p.split("/")[1]!))];
  const named: Record<string, RegExp> = {
    domain: /src\/server\/domain/,
    http: /`http\/`/,
    areas: /an area's/,
    store: /store kernel/i,
    admin: /\*\*Admin\*\*/,
    fixtures: /\*\*fixtures\*\*/,
  };
  for (const folder of serverFolders) expect({ folder, named: (named[folder] ?? new RegExp(folder)).test(finerRules) }).toEqual({ folder, named: true });
});

it("lists the mgmt commands the dispatcher has", () => {
  const listed = /^cli\s+(.*?);/m
    .exec(diagram)![1]!
    .replace(/^mgmt /, "")
    .split(" | ")
    .sort();
  const main = readFileSync(repoPath("src/cli/main.ts"), "utf8");
  // Commands, not the help and version flags and their aliases.
  const dispatched = [...main.matchAll(/^\s+case "([a-z][a-z-]*)":/gm)]
    .map((m) => m[1]!)
    .filter((c) => c !== "help")
    .sort();
  expect(listed).toEqual(dispatched);
});
