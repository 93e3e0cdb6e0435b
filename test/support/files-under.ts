/** What a synth left on disk, for tests that grep it for a secret that must not be there. */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file below `dir`, as text. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f, "utf8"));
}
