/** @tier unit */
/**
 * No import cycle in src/, type imports included. import-x/no-cycle (`npm run lint`) does not
 * follow `import type`, yet a cycle of types still ties two layers together (a store that names a
 * service's types cannot move without it). This reads every import and export specifier as the
 * TypeScript compiler does and looks for strongly connected files.
 */
import { join, relative } from "node:path";
import { cycles, filesUnder, importGraph } from "./import-graph";

const ROOT = join(__dirname, "../..");

/** The file cycles under `dir`, each as paths from the repository's root. */
const fileCycles = (dir: string): string[][] => cycles(importGraph(filesUnder(dir))).map((group) => group.map((f) => relative(ROOT, f)));

test("src/ has no import cycle, type imports included", () => {
  expect(fileCycles(join(ROOT, "src"))).toEqual([]);
});

test("a cycle through type imports alone is found", () => {
  expect(fileCycles(join(__dirname, "fixtures/type-cycle"))).toEqual([["test/lint/fixtures/type-cycle/a.ts", "test/lint/fixtures/type-cycle/b.ts"]]);
});
