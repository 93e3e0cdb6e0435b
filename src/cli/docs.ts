/** `mgmt docs [DIR]`: writes the generated reference pages (committed under docs/reference). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { renderDocs } from "../provider/docs";

/** The repository's examples/, beside dist/ where this bundle runs. */
export const exampleReader =
  (root = join(__dirname, "..", "examples")) =>
  (path: string): string | undefined => {
    const file = join(root, path);
    return existsSync(file) ? readFileSync(file, "utf8") : undefined;
  };

export async function runDocs(args: string[]): Promise<number> {
  if (args.length > 1) {
    process.stderr.write("usage: mgmt docs [DIR]\n");
    return 2;
  }
  const dir = args[0] ?? "docs/reference";
  for (const page of renderDocs(exampleReader())) {
    const file = join(dir, page.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, page.content);
  }
  return 0;
}
