/** @tier unit */
/**
 * No import cycle in src/, type imports included. import-x/no-cycle (`npm run lint`) does not
 * follow `import type`, yet a cycle of types still ties two layers together (a store that names a
 * service's types cannot move without it). This reads every import and export specifier as the
 * TypeScript compiler does and looks for strongly connected files.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = join(__dirname, "../..");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** The relative imports of each file, resolved to files (packages are not followed). */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith("."))
      .map((spec) => resolve(dirname(file), spec))
      .map((base) => [`${base}.ts`, join(base, "index.ts")].find((candidate) => existsSync(candidate)))
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** Groups of files that import each other, directly or not (Tarjan's strongly connected components). */
export function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        group.push(w);
        if (w === v) break;
      }
      if (group.length > 1) found.push(group.map((f) => relative(ROOT, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test("src/ has no import cycle, type imports included", () => {
  expect(cycles(importGraph(filesUnder(join(ROOT, "src"))))).toEqual([]);
});

test("a cycle through type imports alone is found", () => {
  expect(cycles(importGraph(filesUnder(join(__dirname, "fixtures/type-cycle"))))).toEqual([
    ["test/lint/fixtures/type-cycle/a.ts", "test/lint/fixtures/type-cycle/b.ts"],
  ]);
});
