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
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";

interface ModuleStatics {
  _cache: Record<string, unknown>;
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
}
const statics = Module as unknown as ModuleStatics;

interface CompilingModule {
  exports: unknown;
  require(id: string): unknown;
  _compile(content: string, filename: string): unknown;
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
    return homedir();
  } catch {
    return undefined;
  }
}

/** Compiles every module under `bundleDir` through the cache in `cacheDir`. */
export function installCompileCache(bundleDir: string, cacheDir: string): CompileCache {
  const proto = Module.prototype as unknown as CompilingModule;
  const original = proto._compile;
  const used: string[] = [];
  const toWrite: { script: Script; file: string; name: string }[] = [];
  const prefix = bundleDir.endsWith("/") ? bundleDir : bundleDir + "/";

  proto._compile = function (this: CompilingModule, content: string, filename: string): unknown {
    if (!filename.startsWith(prefix)) return original.call(this, content, filename);
    const name = basename(filename);
    const key = sha256().update(process.version).update(process.arch).update(content).digest("hex").slice(0, 24);
    const file = join(cacheDir, `${name}-${key}.v8`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    const script = new Script(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (cachedData && !script.cachedDataRejected) used.push(name);
    else toWrite.push({ script, file, name });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const require = Object.assign((id: string) => this.require(id), {
      resolve: (request: string, options?: { paths?: string[] }) => statics._resolveFilename(request, this, false, options),
      cache: statics._cache,
    });
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };

  return {
    used,
    flush() {
      for (const { script, file, name } of toWrite.splice(0)) {
        try {
          const temporary = `${file}.${process.pid}.tmp`;
          writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
          renameSync(temporary, file);
          // Caches of earlier builds of this bundle are never read again.
          for (const old of readdirSync(cacheDir))
            if (old.startsWith(`${name}-`) && old.endsWith(".v8") && old !== basename(file)) unlinkSync(join(cacheDir, old));
        } catch {
          // Another start may be writing the same file; it is a cache.
        }
      }
    },
    uninstall() {
      proto._compile = original;
    },
  };
}
