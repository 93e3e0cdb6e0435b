/**
 * The plugin's code cache (src/plugin/compile-cache.ts): a bundle compiled once is compiled from
 * V8's cache the next time, behaves the same (its exports, its relative requires, __dirname), a
 * changed bundle never runs a stale cache, and a folder others could write to is not used. Modules
 * are loaded here through node's own loader: jest's would not go through Module.prototype._compile.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { cacheFolder, installCompileCache } from "../../src/plugin/compile-cache";
import { createProvider } from "../../src/provider";
import { PluginHarness } from "./harness";

jest.setTimeout(60_000);

/** The provider block as the engines send it when it sets nothing. */
const EMPTY_PROVIDER_CONFIG = (() => {
  const { block } = createProvider().schemas().provider;
  return {
    ...Object.fromEntries(Object.keys(block.attributes ?? {}).map((name) => [name, null])),
    ...Object.fromEntries(
      Object.entries(block.block_types ?? {}).map(([name, bt]) => [name, bt.nesting_mode === "list" || bt.nesting_mode === "set" ? [] : null]),
    ),
  };
})();

let root: string;
let bundles: string;
let cacheDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "mgmt-compile-cache-"));
  bundles = join(root, "dist");
  cacheDir = join(root, "cache");
  mkdirSync(bundles);
  mkdirSync(cacheDir, { mode: 0o700 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Loads `file` with node's own module loader (jest's would not go through Module.prototype._compile). */
function load(file: string): unknown {
  const Ctor = Module as unknown as new (id: string) => { load(f: string): void; exports: unknown; filename: string; paths: string[] };
  const m = new Ctor(file);
  m.filename = file;
  m.paths = [];
  m.load(file);
  return m.exports;
}

/** One start of the plugin: install, load, write the caches, restore. */
function start(file: string): { exports: unknown; used: readonly string[] } {
  const cache = installCompileCache(bundles, cacheDir);
  try {
    const exports = load(file);
    cache.flush();
    return { exports, used: [...cache.used] };
  } finally {
    cache.uninstall();
    // A new process would load every module again.
    const loaded = (Module as unknown as { _cache: Record<string, unknown> })._cache;
    for (const key of Object.keys(loaded)) if (key.startsWith(root)) delete loaded[key];
  }
}

it("compiles a bundle from its cache on the next start, with the same behaviour", () => {
  writeFileSync(join(bundles, "main.js"), `exports.value = require("node:path").basename(__filename); exports.dir = __dirname;`);
  const first = start(join(bundles, "main.js"));
  expect(first).toEqual({ exports: { value: "main.js", dir: bundles }, used: [] });
  expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/^main\.js-[0-9a-f]{24}\.v8$/)]);
  expect(start(join(bundles, "main.js"))).toEqual({ exports: { value: "main.js", dir: bundles }, used: ["main.js"] });
});

it("the built plugin writes its bundles' caches once and compiles from them on its next starts", async () => {
  const trace = join(root, "trace.jsonl");
  const env = { MGMT_PLUGIN_CACHE_DIR: cacheDir, MGMT_PLUGIN_TRACE: trace };
  const oneStart = async () => {
    rmSync(trace, { force: true });
    const h = await PluginHarness.start({ executable: repoPath("bin", "terraform-provider-mgmt"), env });
    // Loads dist/calls.js and dist/provider.js; the answer is the same with and without the cache.
    expect(await h.validateProviderConfig(EMPTY_PROVIDER_CONFIG)).toEqual({ diagnostics: [] });
    await h.shutdown();
    const marks = readFileSync(trace, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; used?: string[] });
    return marks.find((m) => m.event === "compile cache")!.used!;
  };
  expect(await oneStart()).toEqual([]);
  expect(
    readdirSync(cacheDir)
      .filter((f) => f.endsWith(".v8")) // the folder also keeps the server's certificate (server-identity.ts)
      .map((f) => f.replace(/-[0-9a-f]{24}\.v8$/, ""))
      .sort(),
  ).toEqual(["calls.js", "provider.js", "services.js"]);
  expect((await oneStart()).sort()).toEqual(["calls.js", "provider.js", "services.js"]);
});

it("never runs the cache of another version of a bundle, even of the same length, and drops it", () => {
  writeFileSync(join(bundles, "main.js"), `exports.value = 1;`);
  start(join(bundles, "main.js"));
  writeFileSync(join(bundles, "main.js"), `exports.value = 2;`);
  const changed = start(join(bundles, "main.js"));
  expect(changed.used).toEqual([]);
  expect(changed.exports).toEqual({ value: 2 });
  expect(readdirSync(cacheDir)).toHaveLength(1);
  expect(start(join(bundles, "main.js"))).toEqual({ exports: { value: 2 }, used: ["main.js"] });
});

it("leaves modules outside the bundles' folder to node", () => {
  const outside = join(root, "outside.js");
  writeFileSync(outside, `exports.value = 3;`);
  expect(start(outside)).toEqual({ exports: { value: 3 }, used: [] });
  expect(readdirSync(cacheDir)).toEqual([]);
});

it("uses a private folder only", () => {
  expect(cacheFolder({ MGMT_PLUGIN_CACHE_DIR: cacheDir })).toBe(cacheDir);
  expect(cacheFolder({ XDG_CACHE_HOME: root })).toBe(join(root, "terraform-provider-mgmt"));
  chmodSync(cacheDir, 0o777);
  expect(cacheFolder({ MGMT_PLUGIN_CACHE_DIR: cacheDir })).toBeUndefined();
  writeFileSync(join(root, "a-file"), "");
  expect(cacheFolder({ MGMT_PLUGIN_CACHE_DIR: join(root, "a-file") })).toBeUndefined();
});
