/** The mgmt provider: its configuration, resources and data sources. */
import { configureProvider, providerAttributes, providerDescription, validateProviderConfig, type ProviderContext } from "./config";
import { describeFailure } from "./failure-messages";
import { dataSources } from "./datasources";
import { childAccountTokenEphemeral } from "./ephemeral/child-account-token";
import { createProviderServer, type ProviderDefinition, type ProviderServerOptions } from "./framework/provider-server";
import type { ProviderModule, ProviderServer } from "./framework/server";
import { functions } from "./functions";
import { MANAGED_TYPES } from "./resources";

import { PROVIDER_VERSION } from "./identity";

export { PROVIDER_SOURCE, PROVIDER_VERSION } from "./identity";

export function providerDefinition(env: NodeJS.ProcessEnv = process.env): ProviderDefinition<ProviderContext, typeof providerAttributes> {
  return {
    description: providerDescription,
    version: PROVIDER_VERSION,
    attributes: providerAttributes,
    validate: validateProviderConfig,
    configure: (config, runtime) => configureProvider(config, env, runtime),
    resources: MANAGED_TYPES.map((t) => t.resource),
    dataSources,
    ephemeralResources: [childAccountTokenEphemeral],
    functions,
    written: (ctx, typeName) => ctx.reads.written(typeName),
    close: (ctx) => ctx.release(),
    describeFailure,
  };
}

/**
 * Loads what the first ConfigureProvider loads (the API client, undici, zod), for a process that
 * serves many engine commands (`mgmt warm`) and has time before the first one arrives.
 */
export async function preloadClient(): Promise<void> {
  await import("../client");
}

export interface ProviderOptions extends ProviderServerOptions {
  readonly env?: NodeJS.ProcessEnv;
}

export function createProvider(options: ProviderOptions = {}): ProviderServer {
  return createProviderServer(providerDefinition(options.env ?? process.env), options);
}

// The plugin loads this module's bundle by name and knows it only as the framework's ProviderModule.
({ createProvider, preloadClient }) satisfies ProviderModule;
