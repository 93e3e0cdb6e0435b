/**
 * Entry point of terraform-provider-mgmt. The provider (API client, resources) is imported
 * lazily so the handshake line does not wait for it; see serve.ts.
 */
import { servePlugin } from "./serve";

void servePlugin(() => import("../provider").then((m) => m.createProvider()));
