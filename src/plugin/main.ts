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
import { servePlugin } from "./serve";

const PROVIDER_BUNDLE = "./provider.js";

/** The encoded GetProviderSchema answer, or undefined without the file: the provider then computes it. */
function precomputedSchemaResponse(): Buffer | undefined {
  try {
    return readFileSync(join(__dirname, "schema-response.bin"));
  } catch {
    return undefined;
  }
}

void servePlugin(async (log) => (require(PROVIDER_BUNDLE) as typeof import("../provider")).createProvider({ log }), {
  schemaResponse: precomputedSchemaResponse(),
});
