/** `mgmt docs [DIR]`: writes the generated reference pages (committed under docs/reference). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { renderDocs } from "../provider/docs";
import { parseCommand } from "./args";

/** The repository's examples/, beside dist/ where this bundle runs. */
export const exampleReader =
  (root = join(__dirname, "..", "examples")) =>
  (path: string): string | undefined => {
    const file = join(root, path);
    return existsSync(file) ? readFileSync(file, "utf8") : undefined;
  };

const USAGE = "usage: mgmt docs [DIR]\n\nWrites the provider's reference pages (tfplugindocs layout, examples from examples/) into DIR (default docs/reference).\n";

export async function runDocs(args: string[]): Promise<number> {
  const parsed = parseCommand("docs", USAGE, args, {}, { maxPositionals: 1 });
  if ("exit" in parsed) return parsed.exit;
  const dir = parsed.positionals[0] ?? "docs/reference";
  for (const page of renderDocs(exampleReader())) {
    const file = join(dir, page.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, page.content);
  }
  return 0;
}
