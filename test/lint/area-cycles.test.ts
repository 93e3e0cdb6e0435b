/** @tier unit */
/**
 * No cycle among the server's area folders (src/server/areas/<area>/), type imports included. A cycle of
 * folders needs no cycle of files (one area's service uses another whose store reads the first one's
 * tables), so neither import-x/no-cycle nor test/lint/type-cycles.test.ts sees it; yet it ties the two
 * areas together, and the rules they share belong below both (src/server/auth, src/server/domain).
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { cycles, filesUnder, importGraph } from "./import-graph";

const ROOT = join(__dirname, "../..");

/** The areas under `areasDir` and, for each, the other areas its files import (each import, `import type` too). */
function areaGraph(areasDir: string): Map<string, string[]> {
  const areaOf = (file: string): string | undefined => {
    const parts = relative(areasDir, file).split(sep);
    return parts.length > 1 && parts[0] !== ".." ? parts[0] : undefined;
  };
  const graph = new Map<string, string[]>();
  for (const area of readdirSync(areasDir).filter((name) => statSync(join(areasDir, name)).isDirectory())) {
    const used = [...importGraph(filesUnder(join(areasDir, area))).values()].flat().map(areaOf);
    graph.set(area, [...new Set(used.filter((other): other is string => other !== undefined && other !== area))]);
  }
  return graph;
}

test("the server's areas import one another without a cycle", () => {
  const graph = areaGraph(join(ROOT, "src/server/areas"));
  // The walk saw the areas and their imports (a wrong path would find nothing and pass).
  expect(graph.size).toBeGreaterThan(5);
  expect(graph.get("account")).toContain("tokens");
  expect(cycles(graph)).toEqual([]);
});

test("a cycle of area folders that no file cycle shows is found", () => {
  expect(cycles(areaGraph(join(__dirname, "fixtures/area-cycle/areas")))).toEqual([["a", "b"]]);
});
