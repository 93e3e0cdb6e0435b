/**
 * dist/plugin.js, what the launcher runs: the plugin itself (main.ts, bundled as
 * dist/plugin-main.js) compiled from V8's code cache, so that a start does not compile the code
 * it runs up to its first answer again (compile-cache.ts runWithCodeCache). This file is kept
 * small because node compiles it without a cache on every start.
 */
import { join } from "node:path";
import { cacheFolder, runWithCodeCache } from "./compile-cache";
import { mark } from "./trace";

const cache = runWithCodeCache(join(__dirname, "plugin-main.js"), cacheFolder(process.env), module);
mark("entry code cache", { used: cache.used });
process.on("exit", () => cache.flush());
