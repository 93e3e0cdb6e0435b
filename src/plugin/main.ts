/**
 * Entry point of terraform-provider-mgmt. The provider (API client, resources, zod, undici) is
 * a bundle of its own, dist/provider.js, required by the first call that needs it. The engines
 * start the plugin several times per command and open each start with GetProviderSchema, so
 * the build computes that answer from dist/provider.js and defines it here (scripts/build.mjs,
 * schema-snapshot.ts): a start that only fetches the schema never loads the provider.
 */
import { servePlugin } from "./serve";

const PROVIDER_BUNDLE = "./provider.js";

/** base64 of the encoded GetProviderSchema answer; an esbuild `define` of the build, else undeclared. */
declare const PROVIDER_SCHEMA_RESPONSE: string | undefined;

void servePlugin(async (log) => (require(PROVIDER_BUNDLE) as typeof import("../provider")).createProvider({ log }), {
  schemaResponse: typeof PROVIDER_SCHEMA_RESPONSE === "string" ? Buffer.from(PROVIDER_SCHEMA_RESPONSE, "base64") : undefined,
});
