/** @tier unit */
/**
 * docs/architecture.md against the code: its layer diagram names every folder of src/ and the
 * folders outside it the lint rules, the lint (eslint.config.mjs) has a rule for every layer it
 * names but the tests, and
 * every server folder the lint rules is named in its finer rules; the cli's command list is the
 * dispatcher's.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { repoPath } from "../../src/harness/paths";

const architecture = readFileSync(repoPath("docs/architecture.md"), "utf8");
const lint = readFileSync(repoPath("eslint.config.mjs"), "utf8");
const diagram = /## Layers[\s\S]*?```\n([\s\S]*?)```/.exec(architecture)![1]!;
const finerRules = /The finer rules:([\s\S]*?)\n## /.exec(architecture)![1]!;

/** The layer names a part of the diagram starts its lines with (after the tree's drawing). */
const namesIn = (text: string): string[] => text.split("\n").flatMap((line) => /^[\s│├└─]*([a-z]+)\s{2,}/.exec(line)?.[1] ?? []);
/** The diagram's src/ layers, then the folders outside src/ it names after "outside src/". */
const [insideSrc, outsideSrc] = diagram.split(/^outside src\/.*$/m) as [string, string];
const layers = namesIn(insideSrc);
const outside = namesIn(outsideSrc);
/** The folders the lint has a layer rule for: `layer(["src/provider/**"], ...` as `provider`, `layer(["bench/**"], ...` as `bench`. */
const linted = [...lint.matchAll(/layer\(\s*\[\s*"(?:src\/)?([a-z-]+(?:\/[a-z-]+)?)/g)].map((m) => m[1]!);
/** The one folder without import rules: the suites may import anything. */
const UNRULED = "test";

it("names every folder of src/ in the layer diagram", () => {
  const folders = readdirSync(repoPath("src")).filter((f) => statSync(repoPath("src", f)).isDirectory());
  expect(layers.sort()).toEqual(folders.sort());
});

it("names outside src/ folders that exist, among them every one the lint rules", () => {
  for (const folder of outside)
    expect({ folder, exists: statSync(repoPath(folder), { throwIfNoEntry: false })?.isDirectory() }).toEqual({ folder, exists: true });
  const ruledOutside = linted.filter((path) => !path.includes("/") && !layers.includes(path));
  expect(ruledOutside.filter((folder) => !outside.includes(folder))).toEqual([]);
});

it("has a lint rule for every layer, in src/ and out, but the tests", () => {
  const ruled = new Set(linted.map((path) => path.split("/")[0]));
  expect([...layers, ...outside].filter((l) => !ruled.has(l)).sort()).toEqual([UNRULED]);
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
