/**
 * dist/plugin.js, what the launcher runs: a start that joins a shared plugin process when there
 * is one (shared-join.ts), else the plugin itself (main.ts, bundled as
 * dist/plugin-main.js) compiled from V8's code cache, so that a start does not compile the code
 * it runs up to its first answer again (compile-cache.ts runWithCodeCache). This file is kept
 * small because node compiles it without a cache on every start.
 */
import { join } from "node:path";
import { cacheFolder, runWithCodeCache } from "./compile-cache";
import { checkEnvironment } from "./handshake";
import { type JoinOptions, joinHost } from "./shared-join";
import { buildTag, hostSocketPath, sharingEnabled } from "./shared-place";
import { mark, traceStartAndExit } from "./trace";

function runPlugin(): void {
  const cache = runWithCodeCache(join(__dirname, "plugin-main.js"), cacheFolder(process.env), module);
  mark("entry code cache", { used: cache.used });
  process.on("exit", () => cache.flush());
}

/** Where this start would find its host; undefined when it serves the engine itself in any case. */
function sharedHost(env: NodeJS.ProcessEnv): JoinOptions | undefined {
  // `--warm` and `--shared-host` are long-lived processes of their own; a start without the engine's cookie only says so.
  if (process.argv.length > 2 || !sharingEnabled(env) || !checkEnvironment(env).ok) return undefined;
  const cacheDir = cacheFolder(env);
  if (!cacheDir) return undefined;
  let build: string;
  try {
    build = buildTag(__dirname);
  } catch {
    return undefined;
  }
  const socketPath = hostSocketPath(cacheDir, build, { env, cwd: process.cwd() });
  return socketPath ? { socketPath, entry: __filename, env } : undefined;
}

const host = sharedHost(process.env);
if (host)
  void joinHost(host).then((joined) => {
    if (!joined) return runPlugin();
    traceStartAndExit();
    mark("line", { joined: true });
  });
else runPlugin();
