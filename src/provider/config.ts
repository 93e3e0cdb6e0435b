/**
 * The provider block: where the API is and which token to act with. Environment variables
 * fill what the configuration leaves out, so CI can inject the token without writing it in code.
 */
import { MgmtClient, ApiError } from "../client";
import { attr, error, type Diagnostic } from "./framework/diagnostics";
import type { Schema } from "./framework/schema";
import { isUnknown, type ObjectValue } from "./framework/value";

export interface ProviderContext {
  readonly client: MgmtClient;
}

export const providerSchema: Schema = {
  version: 0,
  block: {
    description: "Manages a Management API account: SSH keys, tokens, OAuth clients, tags and contact details.",
    description_kind: "plain",
    attributes: {
      url: {
        type: "string",
        optional: true,
        description: "Base URL of the Management API including the version prefix, e.g. http://127.0.0.1:8080/v4 (what `mgmt serve` prints). Falls back to the MGMT_URL environment variable.",
        description_kind: "plain",
      },
      token: {
        type: "string",
        optional: true,
        sensitive: true,
        description: "Personal access token or OAuth token. Falls back to the MGMT_TOKEN environment variable.",
        description_kind: "plain",
      },
    },
  },
};

export function validateProviderConfig(config: ObjectValue): Diagnostic[] {
  const url = config.url;
  if (typeof url === "string" && !isHttpUrl(url)) {
    return [error("Invalid url", `url must be an http or https URL such as http://127.0.0.1:8080/v4; got "${url}".`, attr("url"))];
  }
  return [];
}

export async function configureProvider(config: ObjectValue, env: NodeJS.ProcessEnv = process.env): Promise<{ ctx: ProviderContext } | { diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  for (const name of ["url", "token"] as const) {
    if (isUnknown(config[name])) {
      diagnostics.push(error(`Unknown ${name}`, `The provider's ${name} depends on a value not known until apply; it must be known when the provider is configured.`, attr(name)));
    }
  }
  if (diagnostics.length > 0) return { diagnostics };

  const url = typeof config.url === "string" ? config.url : env.MGMT_URL;
  const token = typeof config.token === "string" ? config.token : env.MGMT_TOKEN;
  if (!url) diagnostics.push(error("Missing url", "Set the provider's url attribute or the MGMT_URL environment variable.", attr("url")));
  else if (!isHttpUrl(url)) diagnostics.push(error("Invalid url", `url must be an http or https URL; got "${url}".`, attr("url")));
  if (!token) diagnostics.push(error("Missing token", "Set the provider's token attribute or the MGMT_TOKEN environment variable.", attr("token")));
  if (diagnostics.length > 0 || !url || !token) return { diagnostics };
  return { ctx: { client: new MgmtClient({ url, token }) } };
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/** API failures as diagnostics: the API's reasons verbatim, on the attribute they name. */
export function describeFailure(operation: string, err: unknown): Diagnostic[] {
  if (err instanceof ApiError) {
    const fieldErrors = err.errors.filter((e) => e.field);
    if (fieldErrors.length > 0) {
      return fieldErrors.map((e) => error(`Failed to ${operation}`, `${e.field}: ${e.reason}`, attr(...String(e.field).split("."))));
    }
    return [error(`Failed to ${operation}`, err.message)];
  }
  return [error(`Failed to ${operation}`, err instanceof Error ? err.message : String(err))];
}
