/** @tier unit */
/**
 * The plugin's code cache (src/plugin/compile-cache.ts): a bundle compiled once is compiled from
 * V8's cache the next time, behaves the same (its exports, its relative requires, __dirname), a
 * changed bundle never runs a stale cache, and a folder others could write to is not used. Modules
 * are loaded here through node's own loader: jest's would not go through Module.prototype._compile.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { cacheFolder, installCompileCache, runWithCodeCache } from "../../src/plugin/compile-cache";
import { emptyProviderConfig } from "../support/provider-config";
import { PluginHarness } from "../../testkit/plugin-harness";

jest.setTimeout(60_000);

const EMPTY_PROVIDER_CONFIG = emptyProviderConfig();

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
  // Each start loads the plugin itself, as one that finds no shared host does (shared-host.test.ts has the others).
  const env = { MGMT_PLUGIN_CACHE_DIR: cacheDir, MGMT_PLUGIN_TRACE: trace, MGMT_PLUGIN_SHARED: "off" };
  const oneStart = async (): Promise<{ used: string[]; entry: boolean }> => {
    rmSync(trace, { force: true });
    const h = await PluginHarness.start({ executable: repoPath("bin", "terraform-provider-mgmt"), env });
    // Loads dist/calls.js and dist/provider.js; the answer is the same with and without the cache.
    expect(await h.validateProviderConfig(EMPTY_PROVIDER_CONFIG)).toEqual({ diagnostics: [] });
    await h.shutdown();
    const marks = readFileSync(trace, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; used?: string[] | boolean });
    return {
      used: marks.find((m) => m.event === "compile cache")!.used as string[],
      entry: marks.find((m) => m.event === "entry code cache")!.used as boolean,
    };
  };
  expect(await oneStart()).toEqual({ used: [], entry: false });
  const size = statSync(repoPath("dist", "plugin-main.js")).size;
  expect(
    readdirSync(cacheDir)
      .filter((f) => f.endsWith(".v8")) // the folder also keeps the server's certificate (server-identity.ts)
      .map((f) => f.replace(/-[0-9a-f]{24}\.v8$/, ""))
      .sort(),
  ).toEqual(["calls.js", `plugin-main.js.${size}.v8`, "provider.js", "services.js"]);
  const second = await oneStart();
  expect(second.entry).toBe(true);
  expect(second.used.sort()).toEqual(["calls.js", "provider.js", "services.js"]);
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

describe("the entry bundle's cache (runWithCodeCache)", () => {
  /** A module node's loader made, as dist/plugin.js is when the launcher runs it. */
  const parentModule = (): NodeModule => {
    const Ctor = Module as unknown as new (id: string) => NodeModule & { filename: string; paths: string[] };
    const m = new Ctor(join(bundles, "plugin.js"));
    m.filename = join(bundles, "plugin.js");
    m.paths = [];
    return m;
  };
  // The bundle runs in node's own context, not the test's: it reports what it saw through a file.
  const out = () => join(root, "ran.json");
  const ran = () => JSON.parse(readFileSync(out(), "utf8")) as unknown;
  const report = (expression: string) => `require("node:fs").writeFileSync(${JSON.stringify(out())}, JSON.stringify(${expression}));`;
  const run = (file: string) => {
    rmSync(out(), { force: true });
    const r = runWithCodeCache(file, cacheDir, parentModule());
    r.flush();
    return { used: r.used, ran: ran() };
  };

  it("runs the bundle as a module beside its parent, from the cache on the next run", () => {
    const file = join(bundles, "main.js");
    writeFileSync(file, report(`{ dir: __dirname, name: require("node:path").basename(__filename), sibling: require("./sibling.js") }`));
    writeFileSync(join(bundles, "sibling.js"), `module.exports = "beside";`);
    const expected = { dir: bundles, name: "main.js", sibling: "beside" };
    expect(run(file)).toEqual({ used: false, ran: expected });
    expect(readdirSync(cacheDir)).toEqual([`main.js.${statSync(file).size}.v8`]);
    expect(run(file)).toEqual({ used: true, ran: expected });
  });

  it("never runs a cache made from other bytes of the same length, another node's, or one V8 rejects", () => {
    const file = join(bundles, "main.js");
    writeFileSync(file, report("1"));
    run(file);
    const cache = join(cacheDir, readdirSync(cacheDir)[0]!);
    writeFileSync(file, report("2"));
    expect(run(file)).toEqual({ used: false, ran: 2 });
    expect(run(file)).toEqual({ used: true, ran: 2 });

    const entry = readFileSync(cache);
    const stamp = `${process.version} ${process.arch}\n`;
    expect(entry.subarray(0, stamp.length).toString()).toBe(stamp);
    writeFileSync(cache, Buffer.concat([Buffer.from(`v0.0.0 ${process.arch}\n`), entry.subarray(stamp.length)]));
    expect(run(file)).toEqual({ used: false, ran: 2 });
    // Right stamp and source, bytes that are not V8's code: rejected by V8, compiled from the source.
    // (A source not compiled before in this process: V8 would take its own in-memory copy instead.)
    writeFileSync(file, report("4"));
    const source = readFileSync(file);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(source.length);
    writeFileSync(cache, Buffer.concat([Buffer.from(stamp), length, source, Buffer.alloc(256, 7)]));
    expect(run(file)).toEqual({ used: false, ran: 4 });
    expect(run(file)).toEqual({ used: true, ran: 4 });
  });

  it("without a cache folder, leaves the bundle to node's require and writes nothing", () => {
    const file = join(bundles, "main.js");
    writeFileSync(file, report("3"));
    const r = runWithCodeCache(file, undefined, parentModule());
    r.flush();
    expect({ used: r.used, ran: ran() }).toEqual({ used: false, ran: 3 });
    expect(readdirSync(cacheDir)).toEqual([]);
  });
});

it("uses a private folder only", () => {
  expect(cacheFolder({ MGMT_PLUGIN_CACHE_DIR: cacheDir })).toBe(cacheDir);
  expect(cacheFolder({ XDG_CACHE_HOME: root })).toBe(join(root, "terraform-provider-mgmt"));
  chmodSync(cacheDir, 0o777);
  expect(cacheFolder({ MGMT_PLUGIN_CACHE_DIR: cacheDir })).toBeUndefined();
  writeFileSync(join(root, "a-file"), "");
  expect(cacheFolder({ MGMT_PLUGIN_CACHE_DIR: join(root, "a-file") })).toBeUndefined();
});
