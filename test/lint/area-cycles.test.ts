/** @tier unit */
/**
 * No cycle among the server's area folders (src/server/areas/<area>/), type imports included. A cycle of
 * folders needs no cycle of files (one area's service uses another whose store reads the first one's
 * tables), so neither import-x/no-cycle nor test/lint/type-cycles.test.ts sees it; yet it ties the two
 * areas together, and the rules they share belong below both (src/server/auth, src/server/domain).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

const ROOT = join(__dirname, "../..");

/** The areas under `areasDir` and, for each, the other areas its files import (each import, `import type` too). */
function areaGraph(areasDir: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const areaOf = (file: string): string | undefined => {
    const parts = relative(areasDir, file).split(sep);
    return parts.length > 1 && parts[0] !== ".." ? parts[0] : undefined;
  };
  for (const area of readdirSync(areasDir).filter((name) => statSync(join(areasDir, name)).isDirectory())) {
    const uses = new Set<string>();
    graph.set(area, uses);
    for (const name of readdirSync(join(areasDir, area), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
      const file = join(areasDir, area, name);
      for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
        if (!fileName.startsWith(".")) continue;
        const base = resolve(dirname(file), fileName);
        const target = [`${base}.ts`, join(base, "index.ts")].find((candidate) => existsSync(candidate));
        const used = target === undefined ? undefined : areaOf(target);
        if (used !== undefined && used !== area) uses.add(used);
      }
    }
  }
  return graph;
}

/** The cycles of `graph`, each as the path from an area back to itself (first found per area). */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const walk = (area: string, path: string[]): void => {
    for (const next of graph.get(area) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) found.push([...path.slice(at), next]);
      else if (!done.has(next)) walk(next, [...path, next]);
    }
    done.add(area);
  };
  for (const area of [...graph.keys()].sort()) if (!done.has(area)) walk(area, [area]);
  return found;
}

test("the server's areas import one another without a cycle", () => {
  const graph = areaGraph(join(ROOT, "src/server/areas"));
  // The walk saw the areas and their imports (a wrong path would find nothing and pass).
  expect(graph.size).toBeGreaterThan(5);
  expect(graph.get("account")?.has("tokens")).toBe(true);
  expect(cyclesOf(graph)).toEqual([]);
});

test("a cycle of area folders that no file cycle shows is found", () => {
  expect(cyclesOf(areaGraph(join(__dirname, "fixtures/area-cycle/areas")))).toEqual([["a", "b", "a"]]);
});
