/** The mgmt provider: its configuration, resources and data sources. */
import { configureProvider, describeFailure, providerSchema, validateProviderConfig, type ProviderContext } from "./config";
import { profileDataSource } from "./datasources/profile";
import { createProviderServer } from "./framework/provider-server";
import type { ProviderServer } from "./framework/server";
import { sshKeyResource } from "./resources/ssh-key";

export { PROVIDER_SOURCE, PROVIDER_VERSION } from "./identity";

export function createProvider(env: NodeJS.ProcessEnv = process.env): ProviderServer {
  return createProviderServer<ProviderContext>({
    schema: providerSchema,
    validate: validateProviderConfig,
    configure: (config) => configureProvider(config, env),
    resources: [sshKeyResource],
    dataSources: [profileDataSource],
    describeFailure,
  });
}
