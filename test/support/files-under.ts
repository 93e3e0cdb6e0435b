/** What a synth left on disk, for tests that grep it for a secret that must not be there. */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** What `app.synth()` refused with, or "" when it wrote the stacks. */
export function synthError(app: { synth(): void }): string {
  try {
    app.synth();
    return "";
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Every file below `dir`, as text. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f, "utf8"));
}
