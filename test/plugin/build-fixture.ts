/**
 * Builds a plugin executable the way the product build does (esbuild bundles behind a
 * `#!/usr/bin/env node` wrapper: the entry, services.js that it requires after the handshake
 * line and calls.js that services.js requires after the first answer), so tests drive the real
 * transport in a separate process.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esbuild from "esbuild";

export const ROOT = join(__dirname, "..", "..");
export const PROTO_DIR = join(ROOT, "src", "plugin", "proto");
const GEN_DIR = join(PROTO_DIR, "gen");

/**
 * The generated protobuf code is a build product (gitignored). Regenerate it when missing or
 * older than a .proto, into a private directory first: jest workers may race here.
 */
export function ensureProtoGenerated(): void {
  const protos = readdirSync(PROTO_DIR).filter((f) => f.endsWith(".proto"));
  const js = join(GEN_DIR, "messages.js");
  const newest = Math.max(...protos.map((f) => statSync(join(PROTO_DIR, f)).mtimeMs));
  if (existsSync(js) && existsSync(join(GEN_DIR, "messages.d.ts")) && statSync(js).mtimeMs >= newest) return;
  mkdirSync(GEN_DIR, { recursive: true });
  const tmp = mkdtempSync(join(GEN_DIR, ".tmp-"));
  try {
    const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);
    const flags = ["-t", "static-module", "-w", "commonjs", "--no-verify", "--no-convert", "--no-delimited", "--no-beautify", "--force-number"];
    execFileSync(bin("pbjs"), [...flags, "-o", join(tmp, "messages.js"), ...protos.map((f) => join(PROTO_DIR, f))]);
    execFileSync(bin("pbts"), ["-o", join(tmp, "messages.d.ts"), join(tmp, "messages.js")]);
    renameSync(join(tmp, "messages.d.ts"), join(GEN_DIR, "messages.d.ts"));
    renameSync(join(tmp, "messages.js"), js);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export interface BuiltPlugin {
  readonly dir: string;
  /** `<dir>/terraform-provider-mgmt`, named as the engines look for it. */
  readonly executable: string;
  readonly cleanup: () => void;
}

/** Bundles `entry` (default: the fixture plugin) into a fresh temp dir. */
export async function buildPlugin(entry = join(__dirname, "fixtures", "main.ts"), dir = mkdtempSync(join(tmpdir(), "mgmt-plugin-"))): Promise<BuiltPlugin> {
  ensureProtoGenerated();
  const common = { bundle: true, platform: "node", target: "node20", format: "cjs", logLevel: "warning" } as const;
  const external = ["better-sqlite3", "pg", "pg-native"];
  await Promise.all([
    esbuild.build({ ...common, entryPoints: [entry], outfile: join(dir, "plugin.js"), external: [...external, "./services"] }),
    esbuild.build({
      ...common,
      entryPoints: [join(ROOT, "src", "plugin", "services.ts")],
      outfile: join(dir, "services.js"),
      external: [...external, "./calls"],
    }),
    esbuild.build({ ...common, entryPoints: [join(ROOT, "src", "plugin", "calls.ts")], outfile: join(dir, "calls.js"), external }),
  ]);
  const executable = join(dir, "terraform-provider-mgmt");
  writeFileSync(executable, `#!/usr/bin/env node\nrequire("./plugin.js");\n`);
  chmodSync(executable, 0o755);
  return { dir, executable, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
