/**
 * The provider block: where the API is, which token to act with, and how patiently to talk to
 * it. Environment variables fill what the configuration leaves out, so CI can inject the token
 * without writing it in code.
 */
import { ApiError, DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, MgmtClient } from "../client";
import { batchedReads, type BatchedReads } from "./batched-reads";
import { bool, int, number, string } from "./framework/attributes";
import { attr, error, type AttributePath, type Diagnostic } from "./framework/diagnostics";
import type { Log } from "./framework/log";
import type { Attributes } from "./framework/resource";
import { atLeast, between } from "./framework/validators";
import { isUnknown, knownNumber, type ObjectValue } from "./framework/value";

export interface ProviderContext {
  readonly client: MgmtClient;
  readonly reads: BatchedReads;
}

export const PROVIDER_DEFAULTS = {
  requestTimeoutSeconds: DEFAULT_TIMEOUT_MS / 1000,
  maxRetries: DEFAULT_RETRY_POLICY.maxRetries,
  retryMinDelayMs: DEFAULT_RETRY_POLICY.baseDelayMs,
  retryMaxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs,
} as const;

export const providerDescription = "Manages a Management API account: SSH keys, tokens, OAuth clients, tags, contact details and profile settings.";

export const providerAttributes: Attributes = {
  url: string(
    "optional",
    "Base URL of the Management API including the version prefix, e.g. http://127.0.0.1:8080/v4 (what `mgmt serve` prints). Falls back to the MGMT_URL environment variable.",
    { validate: (v) => (isHttpUrl(v) ? undefined : `must be an http or https URL such as http://127.0.0.1:8080/v4; got "${v}"`) },
  ),
  token: string("optional", "Personal access token or OAuth token. Falls back to the MGMT_TOKEN environment variable.", { sensitive: true }),
  request_timeout: number("optional", `Seconds one request attempt may take (connecting, waiting, reading the answer) before it counts as failed. Default ${PROVIDER_DEFAULTS.requestTimeoutSeconds}.`, {
    validate: between(0.1, 3600),
  }),
  max_retries: int(
    "optional",
    `Retries of a request after its first attempt, on rate limiting (429), server errors and lost connections of requests that are safe to repeat. Default ${PROVIDER_DEFAULTS.maxRetries}; 0 disables retries.`,
    { validate: between(0, 100) },
  ),
  retry_min_delay_ms: int("optional", `Back-off before the first retry when the API gives no Retry-After, doubling with each retry. Default ${PROVIDER_DEFAULTS.retryMinDelayMs}.`, {
    validate: atLeast(0),
  }),
  batch_reads: bool(
    "optional",
    "Whether a refresh reads each collection (SSH keys, tokens, OAuth clients) in pages of 500 and answers the reads of its objects from that, instead of one request per object. Default true.",
  ),
  retry_max_delay_ms: int("optional", `Cap of the computed back-off between retries (a Retry-After from the API is always honoured). Default ${PROVIDER_DEFAULTS.retryMaxDelayMs}.`, {
    validate: atLeast(0),
  }),
};

export function validateProviderConfig(config: ObjectValue): Diagnostic[] {
  const min = knownNumber(config, "retry_min_delay_ms");
  const max = knownNumber(config, "retry_max_delay_ms");
  if (min !== undefined && max !== undefined && min > max) {
    return [error("Invalid retry_max_delay_ms", `retry_max_delay_ms (${max}) must not be below retry_min_delay_ms (${min}).`, attr("retry_max_delay_ms"))];
  }
  return [];
}

export async function configureProvider(
  config: ObjectValue,
  env: NodeJS.ProcessEnv,
  { signal, log }: { readonly signal: AbortSignal; readonly log: Log },
): Promise<{ ctx: ProviderContext } | { diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  for (const name of Object.keys(providerAttributes)) {
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

  const minDelay = knownNumber(config, "retry_min_delay_ms") ?? PROVIDER_DEFAULTS.retryMinDelayMs;
  const client = new MgmtClient({
    url,
    token,
    signal,
    timeoutMs: (knownNumber(config, "request_timeout") ?? PROVIDER_DEFAULTS.requestTimeoutSeconds) * 1000,
    maxRetries: knownNumber(config, "max_retries") ?? PROVIDER_DEFAULTS.maxRetries,
    retry: { baseDelayMs: minDelay, maxDelayMs: knownNumber(config, "retry_max_delay_ms") ?? Math.max(minDelay, PROVIDER_DEFAULTS.retryMaxDelayMs) },
    // Method, path, status and timing only: headers carry the token, bodies carry secrets.
    onAttempt: (e) =>
      log(e.status !== undefined && e.status < 400 ? "debug" : "warn", `${e.method} ${e.path} ${e.status ?? e.failure}`, {
        operation: e.operation,
        method: e.method,
        path: e.path,
        ...(e.status !== undefined ? { status: e.status } : { failure: e.failure }),
        attempt: e.attempt,
        duration_ms: e.durationMs,
      }),
    onRetry: (e) => log("info", `retrying ${e.method} ${e.path} in ${e.delayMs} ms (${e.reason})`, { operation: e.operation, attempt: e.attempt, delay_ms: e.delayMs, reason: e.reason }),
  });
  return { ctx: { client, reads: batchedReads(client, config.batch_reads !== false) } };
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * API failures as diagnostics: the API's reasons verbatim, on the attribute they name. A field
 * such as `computes.2` names an element of a set, which has no index in Terraform: the
 * diagnostic points at the set and says which element.
 */
export function describeFailure(operation: string, err: unknown): Diagnostic[] {
  if (err instanceof ApiError) {
    const fieldErrors = err.errors.filter((e) => e.field);
    if (fieldErrors.length > 0) {
      return fieldErrors.map((e) => {
        const field = String(e.field);
        const [top] = field.split(".") as [string];
        const path: AttributePath = attr(top);
        return error(`Failed to ${operation}`, `${field}: ${e.reason} (HTTP ${err.status})`, path);
      });
    }
    return [error(`Failed to ${operation}`, err.message + scopeHint(err))];
  }
  return [error(`Failed to ${operation}`, err instanceof Error ? err.message : String(err))];
}

/** For a 403, which scope the operation accepts, as the API says in X-Accepted-OAuth-Scopes. */
export function scopeHint(err: ApiError): string {
  if (err.status !== 403 || err.acceptedScopes === undefined) return "";
  return ` This operation accepts OAuth scope "${err.acceptedScopes}" (or its read_write form, or "*"): give the token that scope. If it already has it, the user is restricted and lacks the grant (see data.mgmt_grants).`;
}
