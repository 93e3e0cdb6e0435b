/**
 * Entry point of terraform-provider-mgmt. The provider (API client, resources, zod, undici) is
 * a bundle of its own, dist/provider.js, required only after the handshake line is out: the
 * engine starts the plugin several times per command, and most starts need the provider late
 * or not at all.
 */
import { servePlugin } from "./serve";

const PROVIDER_BUNDLE = "./provider.js";

void servePlugin(async (log) => (require(PROVIDER_BUNDLE) as typeof import("../provider")).createProvider({ log }));
