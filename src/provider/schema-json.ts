/** The provider schema as `terraform providers schema -json` prints it (input of the binding generator). */
import { createProvider, PROVIDER_SOURCE } from "./index";

export function providerSchemaJson() {
  const s = createProvider().schemas();
  return {
    format_version: "1.0",
    provider_schemas: {
      [PROVIDER_SOURCE]: {
        provider: s.provider,
        resource_schemas: s.resources,
        data_source_schemas: s.dataSources,
        ephemeral_resource_schemas: s.ephemeralResources,
        functions: s.functions,
      },
    },
  };
}
