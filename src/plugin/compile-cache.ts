/**
 * V8's code cache for the plugin's own bundles. The engines start the plugin three to five times
 * per command, and every start that does more than answer the schema loads dist/provider.js,
 * dist/calls.js and, to configure, dist/undici.js and dist/zod.js: node parses and compiles them
 * each time. With the bytes V8 made the first time (its code cache, functions compiled during
 * that run included), a later start skips most of that work.
 *
 * The cache is a private folder of the user's (XDG_CACHE_HOME or ~/.cache, then
 * terraform-provider-mgmt; MGMT_PLUGIN_CACHE_DIR overrides). V8 checks a cache against the
 * source's length only, so each file is named by a hash of the source and node's version, and a
 * folder that someone else could write to is not used: cached code runs as our own. Nothing is
 * written beside the bundles, whose folder an engine may hash against its lock file. A missing,
 * unreadable or rejected cache only means compiling as without it.
 *
 * V8 also checks a cache against the V8 flags in force, node's own too: node's built-in modules
 * (net, tls, crypto, the streams: some 80 by the first answer) come compiled in node's binary, and
 * one V8 flag on node's command line makes V8 reject every one of them, so the plugin runs with
 * none. A flag a bundle needs (BUNDLE_V8_FLAGS) is set just before that bundle is compiled, and
 * the caches of what was compiled before it are written first, under the flags they were read with.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

interface CompilingModule {
  exports: unknown;
  filename: string;
  paths: string[];
  loaded: boolean;
  require(id: string): unknown;
  _compile(content: string, filename: string): unknown;
}

/** node's CommonJS Module class, as far as this file uses it. */
interface ModuleClass {
  new (id: string, parent?: unknown): CompilingModule;
  prototype: CompilingModule;
  wrap(source: string): string;
  _cache: Record<string, unknown>;
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
  _nodeModulePaths(from: string): string[];
}

/**
 * node's Module class, from the module running this code when node's loader made it: loading the
 * public node:module (and the ES module loader behind it) is a millisecond before the handshake
 * line. Under another loader (jest's), node:module itself.
 */
function moduleClass(): ModuleClass {
  const own: unknown = typeof module === "undefined" ? undefined : module.constructor;
  if (isModuleClass(own)) return own;
  const fromNode: unknown = require("node:module");
  if (isModuleClass(fromNode)) return fromNode;
  throw new Error("node:module is not node's CommonJS Module class");
}

/** Whether `c` is node's Module class: what node's types do not declare (wrap, _nodeModulePaths) is checked here. */
function isModuleClass(c: unknown): c is ModuleClass {
  return (
    typeof c === "function" &&
    "wrap" in c &&
    typeof c.wrap === "function" &&
    "_nodeModulePaths" in c &&
    typeof c._nodeModulePaths === "function" &&
    "_resolveFilename" in c &&
    typeof c._resolveFilename === "function"
  );
}

/** node:vm on first use: nothing is compiled through a cache before the handshake line but the entry bundle. */
const vm = () => require("node:vm") as typeof import("node:vm");

/** What a bundle's code uses of its `require`: the call, `require.resolve` and `require.cache`. */
type BundleRequire = ((id: string) => unknown) & {
  resolve(request: string, options?: { paths?: string[] }): string;
  cache: Record<string, unknown>;
};

/** What a module's code gets as `require`, as node's own loader makes it (as far as the bundles use it). */
function requireFor(Module: ModuleClass, m: CompilingModule): BundleRequire {
  return Object.assign((id: string) => m.require(id), {
    resolve: (request: string, options?: { paths?: string[] }) => Module._resolveFilename(request, m, false, options),
    cache: Module._cache,
  });
}

export interface CompileCache {
  /** Bundles compiled from their cache in this process. */
  readonly used: readonly string[];
  /** Writes the caches of bundles compiled without one (at exit in the plugin). */
  flush(): void;
  /** Restores node's own compile (tests). */
  uninstall(): void;
}

/** node:crypto loads on first use: a bundle is compiled only after the handshake line, and loading it costs milliseconds. */
const sha256 = () => (require("node:crypto") as typeof import("node:crypto")).createHash("sha256");

/** The cache folder, or undefined when there is none we can trust. */
export function cacheFolder(env: NodeJS.ProcessEnv): string | undefined {
  let dir = env.MGMT_PLUGIN_CACHE_DIR;
  if (!dir) {
    const base = env.XDG_CACHE_HOME || (env.HOME ? join(env.HOME, ".cache") : safeHomedir());
    if (!base) return undefined;
    dir = join(base, "terraform-provider-mgmt");
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

function safeHomedir(): string | undefined {
  try {
    return (require("node:os") as typeof import("node:os")).homedir();
  } catch {
    return undefined;
  }
}

/**
 * V8 flags a bundle needs, set when it is first compiled. undici's HTTP parser is WebAssembly
 * (llhttp), which V8 compiles first with its baseline compiler (Liftoff) and then, once hot, again
 * with TurboFan: baseline code parses the few thousand answers of a large plan as fast (no CPU
 * difference measured, bench/rpc-rss.ts), and without TurboFan's compile and its second copy of
 * the code the planning start of a no-op plan of 3,000 keys peaks ~9 MiB lower. Only a start that
 * makes API requests loads dist/undici.js, so only those compile the built-in modules they load
 * after it without node's cache.
 */
export const BUNDLE_V8_FLAGS: Readonly<Record<string, string>> = { "undici.js": "--liftoff-only" };

/**
 * node's own modules that a bundle and what runs after it load, required just before the bundle's
 * flags are set. node's built-in modules come compiled in its binary, and V8 rejects that code
 * once any flag is set, so each one first required after the flag is compiled from source: these
 * are what a configuring start loaded after `--liftoff-only` on both engines (undici's HTTP/2
 * client, its asserts and fs.promises, the `performance` global the API client times attempts
 * with), 15 to 20 ms of CPU compiling them from source against a few from the binary's code.
 * test/plugin/launcher.test.ts checks that a configuring start loads none after the flag.
 */
const BUNDLE_BUILTINS: Readonly<Record<string, readonly string[]>> = {
  "undici.js": ["node:assert", "node:fs/promises", "node:http2", "node:perf_hooks"],
};

/**
 * What the copies of this module in the plugin's bundles share (dist/plugin.js and
 * dist/plugin-main.js each hold one): the caches not yet written and the flags already set.
 */
interface Shared {
  readonly unwritten: Set<() => void>;
  readonly flagsSet: Set<string>;
}
const SHARED = Symbol.for("terraform-provider-mgmt.compile-cache");
function shared(): Shared {
  const found: unknown = Reflect.get(globalThis, SHARED);
  if (isShared(found)) return found;
  const made: Shared = { unwritten: new Set(), flagsSet: new Set() };
  Reflect.set(globalThis, SHARED, made);
  return made;
}
const isShared = (v: unknown): v is Shared =>
  typeof v === "object" && v !== null && "unwritten" in v && v.unwritten instanceof Set && "flagsSet" in v && v.flagsSet instanceof Set;

/**
 * Sets V8 `flags` for the rest of the process, once. V8 stamps a cache with the flags in force
 * when it is made and rejects it under others, so every cache still unwritten is written first:
 * the next start reads it before these flags are set.
 */
export function setV8Flags(flags: string): void {
  const { unwritten, flagsSet } = shared();
  if (flagsSet.has(flags)) return;
  flagsSet.add(flags);
  for (const write of [...unwritten]) write();
  (require("node:v8") as typeof import("node:v8")).setFlagsFromString(flags);
}

/**
 * Compiles every module under `bundleDir` through the cache in `cacheDir`, after setting the V8
 * flags it needs (BUNDLE_V8_FLAGS). Without a cache folder, only the flags.
 */
export function installCompileCache(bundleDir: string, cacheDir: string | undefined): CompileCache {
  const Module = moduleClass();
  const proto = Module.prototype;
  const original = proto._compile;
  const used: string[] = [];
  const toWrite: { script: import("node:vm").Script; file: string; name: string }[] = [];
  const prefix = bundleDir.endsWith("/") ? bundleDir : bundleDir + "/";
  const flush = () => {
    shared().unwritten.delete(flush);
    for (const { script, file, name } of toWrite.splice(0)) {
      try {
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
        renameSync(temporary, file);
        // Caches of earlier builds of this bundle are never read again.
        for (const old of readdirSync(cacheDir!))
          if (old.startsWith(`${name}-`) && old.endsWith(".v8") && old !== basename(file)) unlinkSync(join(cacheDir!, old));
      } catch {
        // Another start may be writing the same file; it is a cache.
      }
    }
  };

  proto._compile = function (this: CompilingModule, content: string, filename: string): unknown {
    if (!filename.startsWith(prefix)) return original.call(this, content, filename);
    const name = basename(filename);
    const flags = BUNDLE_V8_FLAGS[name];
    if (flags) {
      for (const builtin of BUNDLE_BUILTINS[name] ?? []) require(builtin);
      setV8Flags(flags);
    }
    if (!cacheDir) return original.call(this, content, filename);
    const key = sha256().update(process.version).update(process.arch).update(content).digest("hex").slice(0, 24);
    const file = join(cacheDir, `${name}-${key}.v8`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    const script = new (vm().Script)(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (cachedData && !script.cachedDataRejected) used.push(name);
    else {
      toWrite.push({ script, file, name });
      shared().unwritten.add(flush);
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireFor(Module, this), this, filename, dirname(filename));
  };

  return {
    used,
    flush,
    uninstall() {
      proto._compile = original;
      shared().unwritten.delete(flush);
    },
  };
}

/**
 * Runs the bundle `file` as a module of `parent`'s, compiled from V8's code cache in `cacheDir`
 * when there is one made from the same bytes: dist/plugin.js does this for dist/plugin-main.js,
 * the code of every start up to its first answer (the handshake, TLS, HTTP/2, the first router),
 * which node would otherwise compile, function by function as each first runs, on every start.
 *
 * Before the handshake line there is no node:crypto to hash the source with (installCompileCache),
 * so the cache keeps a copy of the source and is used only when that copy is byte for byte the
 * bundle read now, for the same node and architecture. Its name carries the source's length, so
 * builds of other lengths (another installed version) keep their own. flush() writes it when this
 * start had none (the plugin does at exit, so it holds the functions that start compiled). Without
 * a cache folder, node's own require.
 */
export function runWithCodeCache(file: string, cacheDir: string | undefined, parent: NodeModule): { readonly used: boolean; flush(): void } {
  if (!cacheDir) {
    parent.require(file);
    return { used: false, flush: () => {} };
  }
  const constructor: unknown = parent.constructor;
  const Module = isModuleClass(constructor) ? constructor : moduleClass();
  const source = readFileSync(file);
  const stamp = Buffer.from(`${process.version} ${process.arch}\n`);
  const cacheFile = join(cacheDir, `${basename(file)}.${source.length}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = cachedCode(readFileSync(cacheFile), stamp, source);
  } catch {
    cachedData = undefined;
  }
  const script = new (vm().Script)(Module.wrap(source.toString("utf8")), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  let written = used;
  const flush = () => {
    shared().unwritten.delete(flush);
    if (!written) writeCodeCache(cacheFile, [stamp, length32(source.length), source, script.createCachedData()]);
    written = true;
  };
  if (!written) shared().unwritten.add(flush);

  const m = new Module(file, parent);
  m.filename = file;
  m.paths = Module._nodeModulePaths(dirname(file));
  const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
  wrapper.call(m.exports, m.exports, requireFor(Module, m), m, file, dirname(file));
  m.loaded = true;
  return { used, flush };
}

/** The cached code of an entry (stamp, source length, source, code) when its stamp and source are these. */
function cachedCode(entry: Buffer, stamp: Buffer, source: Buffer): Buffer | undefined {
  const at = stamp.length + 4;
  if (entry.length <= at + source.length || !entry.subarray(0, stamp.length).equals(stamp)) return undefined;
  if (entry.readUInt32BE(stamp.length) !== source.length || !entry.subarray(at, at + source.length).equals(source)) return undefined;
  return entry.subarray(at + source.length);
}

function length32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function writeCodeCache(file: string, parts: Buffer[]): void {
  try {
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.concat(parts), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // Another start may be writing the same file; it is a cache.
  }
}
