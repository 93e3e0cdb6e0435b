/**
 * Would a Node startup snapshot (`node --snapshot-blob X --build-snapshot`, node 20) start the
 * plugin's busier starts sooner than V8's code cache does? The bundles a configuring start loads
 * (dist/provider.js, dist/calls.js, dist/zod.js) are evaluated into a snapshot, and node's CPU
 * time to exit (its own resource usage, read at exit) is compared, in alternated runs, for:
 *
 * - bare node (`node -e`), what every start pays;
 * - node started from an empty snapshot of its own, what a snapshot costs by itself;
 * - node started from the snapshot holding the three bundles, evaluated: what every start would
 *   pay, the schema-only ones included (the launcher cannot know which start it is);
 * - bare node that loads the three bundles through the plugin's code cache
 *   (src/plugin/compile-cache.ts), as the plugin does today when it configures.
 *
 * undici cannot be in a snapshot (its HTTP/2 client loads node:tls, which node refuses there), nor
 * node:net, node:tls and node:crypto, which every start loads for its handshake; node's built-in
 * modules the bundles require at load are handed over lazily, as the build could. Nothing here is
 * the plugin's own start: bench/plugin-startup.ts and bench/stack.ts measure those.
 *
 * Run with `npm run build && node scripts/run-ts.mjs bench/startup-snapshot.ts` (BENCH_RUNS, default 20).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { repoPath } from "../src/harness/paths";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BUNDLES = ["provider.js", "calls.js", "zod.js"].map((b) => repoPath("dist", b));

/** Prints node's own CPU time so far at exit, in ms: bootstrap and deserialization included. */
const PRINT_CPU = `process.on("exit", () => { const u = process.resourceUsage(); process.stdout.write(String((u.userCPUTime + u.systemCPUTime) / 1000)); });`;

/**
 * node's modules a bundle requires, handed over on first use: a snapshot may not hold node:tls or
 * what loads it. `__esModule` is answered without loading, so that esbuild's interop checks do not.
 */
const lazyBuiltins: esbuild.Plugin = {
  name: "lazy-builtins",
  setup(build) {
    build.onResolve({ filter: /^node:(tls|crypto|http|https|net|zlib|os|child_process|stream|dns|timers\/promises)$/ }, (a) => ({
      path: a.path,
      namespace: "lazy-builtin",
    }));
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (a) => ({
      contents: `let m; module.exports = new Proxy({}, { get: (_, k) => (k === "__esModule" ? undefined : (m ??= process.getBuiltinModule(${JSON.stringify(a.path)}))[k]) });`,
    }));
  },
};

async function snapshotBlob(dir: string, name: string, imports: string): Promise<string> {
  const entry = join(dir, `${name}-entry.ts`);
  writeFileSync(entry, `${imports}\nimport * as v8 from "node:v8";\nv8.startupSnapshot.setDeserializeMainFunction(() => { ${PRINT_CPU} });\n`);
  const script = join(dir, `${name}.js`);
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile: script,
    external: ["undici", "better-sqlite3", "pg", "pg-native"],
    plugins: [lazyBuiltins],
    logLevel: "error",
    nodePaths: [repoPath("node_modules")],
  });
  const blob = join(dir, `${name}.blob`);
  execFileSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", script], { cwd: dir, stdio: "ignore" });
  return blob;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "mgmt-snapshot-bench-"));
  try {
    const cache = join(dir, "cache");
    mkdirSync(cache, { mode: 0o700 });
    const empty = await snapshotBlob(dir, "empty", "");
    const full = await snapshotBlob(
      dir,
      "bundles",
      [
        `import * as provider from ${JSON.stringify(repoPath("src/provider/index.ts"))};`,
        `import * as calls from ${JSON.stringify(repoPath("src/plugin/calls.ts"))};`,
        `import * as zod from "zod";`,
        `Reflect.set(globalThis, "kept", { provider, calls, zod });`,
      ].join("\n"),
    );
    const loader = join(dir, "code-cache.js");
    await esbuild.build({
      entryPoints: [repoPath("src/plugin/compile-cache.ts")],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: loader,
      logLevel: "error",
    });
    const withCache = join(dir, "with-cache.js");
    writeFileSync(
      withCache,
      `${PRINT_CPU}\nconst c = require(${JSON.stringify(loader)}).installCompileCache(${JSON.stringify(repoPath("dist"))}, ${JSON.stringify(cache)});\n` +
        `${BUNDLES.map((b) => `require(${JSON.stringify(b)});`).join("\n")}\nprocess.on("exit", () => c.flush());\n`,
    );
    const contenders: Record<string, string[]> = {
      "bare node": ["-e", PRINT_CPU],
      "empty snapshot": ["--snapshot-blob", empty],
      "snapshot of the bundles": ["--snapshot-blob", full],
      "bundles from the code cache": [withCache],
    };
    const cpu = (args: string[]) => Number(execFileSync(process.execPath, args, { encoding: "utf8" }));
    cpu(contenders["bundles from the code cache"]!); // writes the caches
    const runs = new Map<string, number[]>(Object.keys(contenders).map((k) => [k, []]));
    for (let round = 0; round < RUNS; round++) for (const [name, args] of Object.entries(contenders)) runs.get(name)!.push(cpu(args));
    const bare = median(runs.get("bare node")!);
    process.stdout.write(`node's CPU time to exit, medians of ${RUNS} alternated runs (against bare node)\n| start | CPU | over bare node |\n|---|---|---|\n`);
    for (const [name, xs] of runs) process.stdout.write(`| ${name} | ${median(xs).toFixed(1)} ms | +${(median(xs) - bare).toFixed(1)} ms |\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
