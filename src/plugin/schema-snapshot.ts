/**
 * A step of scripts/build.mjs: prints, in base64, the encoded GetProviderSchema answer of the
 * provider bundle named on the command line, for the build to write beside dist/plugin.js (main.ts).
 * It is the answer the plugin would compute after loading that bundle, made by the same code.
 */
import type { ProviderModule } from "../provider/framework/server";
import { encodeProviderSchemaResponse } from "./provider-service";

const [bundle] = process.argv.slice(2);
if (!bundle) throw new Error("usage: schema-snapshot <provider bundle>");
const { createProvider } = require(bundle) as ProviderModule;
process.stdout.write(Buffer.from(encodeProviderSchemaResponse(createProvider().schemas())).toString("base64"));
