/**
 * Entry point of terraform-provider-mgmt. The provider (API client, resources, zod, undici) is
 * a bundle of its own, dist/provider.js, required by the first call that needs it. The engines
 * start the plugin several times per command and open each start with GetProviderSchema, so
 * the build computes that answer from dist/provider.js into dist/schema-response.bin, beside this
 * bundle (scripts/build.mjs, schema-snapshot.ts): a start that only fetches the schema never
 * loads the provider.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cacheFolder, installCompileCache } from "./compile-cache";
import type { ProviderModule } from "../provider/framework/server";
import { servePlugin } from "./serve";
import { mark } from "./trace";

const PROVIDER_BUNDLE = "./provider.js";

/** The encoded GetProviderSchema answer, or undefined without the file: the provider then computes it. */
function precomputedSchemaResponse(): Buffer | undefined {
  try {
    return readFileSync(join(__dirname, "schema-response.bin"));
  } catch {
    return undefined;
  }
}

const cacheDir = cacheFolder(process.env);
// Without a cache folder too: it also sets the V8 flags a bundle needs (compile-cache.ts BUNDLE_V8_FLAGS).
const cache = installCompileCache(__dirname, cacheDir);
process.on("exit", () => {
  mark("compile cache", { used: cache.used });
  cache.flush();
});

const createProvider: Parameters<typeof servePlugin>[0] = async (log) => (require(PROVIDER_BUNDLE) as ProviderModule).createProvider({ log });

const preload = () => (require(PROVIDER_BUNDLE) as ProviderModule).preloadClient();

const [mode, ...args] = process.argv.slice(2);
// `--warm`: one long-lived process the engines attach to (warm.ts, started by `mgmt warm`).
if (mode === "--warm") void (require("./warm") as typeof import("./warm")).serveWarm(createProvider, { schemaResponse: precomputedSchemaResponse(), preload });
// `--shared-host SOCKET`: the process later starts join (shared-host.ts, started by shared-join.ts).
else if (mode === "--shared-host")
  void (require("./shared-host") as typeof import("./shared-host")).serveSharedHost(createProvider, {
    socketPath: args[0] ?? "",
    cacheDir,
    schemaResponse: precomputedSchemaResponse(),
    preload,
  });
else void servePlugin(createProvider, { schemaResponse: precomputedSchemaResponse(), cacheDir });
