/** `mgmt docs [DIR]`: writes the generated reference pages (committed under docs/, beside hand-written ones). */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isGeneratedPage, renderDocs, type DocPage } from "../provider/docs";
import { parseCommand } from "./args";

/** The repository's examples/, beside dist/ where this bundle runs. */
export const exampleReader =
  (root = join(__dirname, "..", "examples")) =>
  (path: string): string | undefined => {
    const file = join(root, path);
    return existsSync(file) ? readFileSync(file, "utf8") : undefined;
  };

/** Generated pages in DIR (its own .md files and those one folder down, where the generator writes), by path relative to DIR. */
export function generatedPagesIn(dir: string): string[] {
  const markdown = (sub: string) =>
    existsSync(join(dir, sub))
      ? readdirSync(join(dir, sub))
          .filter((f) => f.endsWith(".md"))
          .map((f) => (sub ? `${sub}/${f}` : f))
      : [];
  const folders = existsSync(dir) ? readdirSync(dir).filter((f) => statSync(join(dir, f)).isDirectory()) : [];
  return [...markdown(""), ...folders.flatMap(markdown)].filter((path) => isGeneratedPage(readFileSync(join(dir, path), "utf8"))).sort();
}

/**
 * Writes the pages into DIR and removes the generated pages that no longer have a subject; a
 * hand-written page (one without the generated mark) is never removed or overwritten.
 */
export function writeDocs(dir: string, pages: readonly DocPage[]): { readonly removed: readonly string[] } {
  const clashes = pages.map((p) => p.path).filter((path) => existsSync(join(dir, path)) && !isGeneratedPage(readFileSync(join(dir, path), "utf8")));
  if (clashes.length > 0) throw new Error(`not overwriting hand-written pages: ${clashes.map((p) => join(dir, p)).join(", ")}`);
  const current = new Set(pages.map((p) => p.path));
  const removed = generatedPagesIn(dir).filter((path) => !current.has(path));
  for (const path of removed) rmSync(join(dir, path));
  for (const page of pages) {
    const file = join(dir, page.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, page.content);
  }
  return { removed };
}

const USAGE =
  "usage: mgmt docs [DIR]\n\nWrites the provider's reference pages into DIR (default docs) in the tfplugindocs layout:\nindex.md, resources/, data-sources/, ephemeral-resources/ and functions/, with examples from\nexamples/. Generated pages that are stale are removed; hand-written pages in DIR are left alone.\n";

export async function runDocs(args: string[]): Promise<number> {
  const parsed = parseCommand("docs", USAGE, args, {}, { maxPositionals: 1 });
  if ("exit" in parsed) return parsed.exit;
  const dir = parsed.positionals[0] ?? "docs";
  const pages = renderDocs(exampleReader());
  let removed;
  try {
    ({ removed } = writeDocs(dir, pages));
  } catch (err) {
    process.stderr.write(`mgmt docs: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  for (const path of removed) process.stderr.write(`mgmt docs: removed stale ${join(dir, path)}\n`);
  for (const path of pages.flatMap((p) => p.missing)) process.stderr.write(`mgmt docs: no example examples/${path}\n`);
  return 0;
}
