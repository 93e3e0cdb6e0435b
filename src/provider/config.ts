/**
 * The provider block: where the API is, which token to act with, and how patiently to talk to
 * it. Environment variables fill what the configuration leaves out, so CI can inject the token
 * without writing it in code.
 */
import type { Credentials, MgmtClient } from "../client";
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS } from "../client/retry";
import { childAccountEuuid as euuidRule } from "../contract/field-rules";
import { batchedReads, type BatchedReads } from "./batched-reads";
import { extraCaContext } from "./extra-ca";
import { bool, int, listBlock, number, string } from "./framework/attributes";
import { attr, error, type AttributePath, type Diagnostic } from "./framework/diagnostics";
import type { Log } from "./framework/log";
import type { Attributes } from "./framework/resource";
import { atLeast, between } from "./framework/validators";
import { isUnknown, known, type ObjectValue } from "./framework/value";
import type { ConfigOf } from "./framework/value-types";
import { childAccountFailure, credentialsFailure, type Origins } from "./failure-messages";
import { childAccountClient } from "./proxy-session";

export interface ProviderContext {
  /** Acts as the configured token, or as the child account's proxy user in child-account mode. */
  readonly client: MgmtClient;
  readonly reads: BatchedReads;
  /** Proxy tokens mgmt_child_account_token opened, by id: revoking one takes its value, which must not travel in private data. */
  readonly openedTokens: Map<number, string>;
  /** A client with the same settings acting with another token (close it after use). */
  clientWith(token: string): MgmtClient;
  /**
   * The first 16 characters of the configured token (what the API's token reads show of a token), so that
   * mgmt_token can refuse to revoke the credential the provider acts with; null in child-account mode.
   */
  readonly actingTokenPrefix: string | null;
  /** Ends what configure started: revokes the proxy token, closes connections. */
  release(): Promise<void>;
}

export const PROVIDER_DEFAULTS = {
  requestTimeoutSeconds: DEFAULT_TIMEOUT_MS / 1000,
  retryBudgetSeconds: DEFAULT_RETRY_POLICY.maxElapsedMs / 1000,
  retryMinDelayMs: DEFAULT_RETRY_POLICY.baseDelayMs,
  retryMaxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs,
} as const;

export const providerDescription = "Manages a Management API account: SSH keys, tokens, OAuth clients, tags, contact details and profile settings.";

/** The child account to act in: the provider's child_account block and mgmt_child_account_token take it alike. */
export const childAccountEuuid = string("required", "The child account's euuid (see data.mgmt_child_accounts).", { validate: euuidRule });

export const providerAttributes = {
  url: string(
    "optional",
    "Base URL of the Management API including the version prefix, e.g. http://127.0.0.1:8080/v4 (what `mgmt serve` prints). Falls back to the MGMT_URL environment variable.",
    { validate: (v) => (isHttpUrl(v) ? undefined : `must be an http or https URL such as http://127.0.0.1:8080/v4; got "${v}"`) },
  ),
  token: string("optional", "Personal access token or OAuth token. Falls back to the MGMT_TOKEN environment variable.", { sensitive: true }),
  skip_credentials_validation: bool(
    "optional",
    "Whether to skip checking, when the provider is configured, that the url leads to the API and that it accepts the token (one GET /profile per provider process). Default false; true allows a plan without reaching the API when nothing in it needs reading.",
  ),
  request_timeout: number(
    "optional",
    `Seconds one request attempt may take (connecting, waiting, reading the answer) before it counts as failed. Default ${PROVIDER_DEFAULTS.requestTimeoutSeconds}.`,
    {
      validate: between(0.1, 3600),
    },
  ),
  max_retries: int(
    "optional",
    `Most retries of a request after its first attempt, on rate limiting (429), server errors and lost connections of requests that are safe to repeat. Unset: as many as start within ${PROVIDER_DEFAULTS.retryBudgetSeconds / 60} minutes of the first attempt (each waiting out any Retry-After); 0 disables retries. A connection refused is retried twice at most either way.`,
    { validate: between(0, 100) },
  ),
  retry_min_delay_ms: int(
    "optional",
    `Back-off before the first retry when the API gives no Retry-After, doubling with each retry. Default ${PROVIDER_DEFAULTS.retryMinDelayMs}.`,
    {
      validate: atLeast(0),
    },
  ),
  batch_reads: bool(
    "optional",
    "Whether a refresh reads each collection (SSH keys, tokens, OAuth clients, tag labels) in pages of 500 and answers the reads of its objects from that, instead of one request per object; a tag's objects are taken as last read unless the events feed shows a change since (one request for all tags). Default true.",
  ),
  retry_max_delay_ms: int(
    "optional",
    `Cap of the computed back-off between retries (a Retry-After from the API is always honoured). Default ${PROVIDER_DEFAULTS.retryMaxDelayMs}.`,
    {
      validate: atLeast(0),
    },
  ),
  child_account: listBlock(
    "Act inside this child account as its proxy user: the provider obtains 15-minute proxy tokens with the configured (parent) token, which needs OAuth scope child_account:read_write, replaces each before it expires, and revokes the last when it ends. Falls back to the MGMT_CHILD_ACCOUNT_EUUID environment variable.",
    { euuid: childAccountEuuid },
    { maxItems: 1 },
  ),
} satisfies Attributes;

/** The provider's configuration as validation and configure see it (a value may still be unknown). */
export type ProviderConfig = ConfigOf<typeof providerAttributes>;

export function validateProviderConfig(config: ProviderConfig): Diagnostic[] {
  const min = known(config.retry_min_delay_ms);
  const max = known(config.retry_max_delay_ms);
  if (min !== undefined && max !== undefined && min > max) {
    return [error("Invalid retry_max_delay_ms", `retry_max_delay_ms (${max}) must not be below retry_min_delay_ms (${min}).`, attr("retry_max_delay_ms"))];
  }
  return [];
}

export async function configureProvider(
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
  { signal, log, now }: { readonly signal: AbortSignal; readonly log: Log; readonly now: () => Date },
): Promise<{ ctx: ProviderContext } | { diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const childBlock = Array.isArray(config.child_account) ? (config.child_account as readonly ObjectValue[])[0] : undefined;
  const euuidPath: AttributePath = [{ attribute: "child_account" }, { index: 0 }, { attribute: "euuid" }];
  const settings: [string, unknown, AttributePath][] = Object.entries(config).map(([name, value]) => [name, value, attr(name)]);
  for (const [name, value, path] of [...settings, ["child_account.euuid", childBlock?.euuid, euuidPath] as const]) {
    if (isUnknown(value)) {
      diagnostics.push(
        error(`Unknown ${name}`, `The provider's ${name} depends on a value not known until apply; it must be known when the provider is configured.`, path),
      );
    }
  }
  if (diagnostics.length > 0) return { diagnostics };

  const url = typeof config.url === "string" ? config.url : env.MGMT_URL;
  const token = typeof config.token === "string" ? config.token : env.MGMT_TOKEN;
  const origins: Origins = {
    url: typeof config.url === "string" ? "the provider's url attribute" : "MGMT_URL",
    token: typeof config.token === "string" ? "the provider's token attribute" : "MGMT_TOKEN",
  };
  if (!url) diagnostics.push(error("Missing url", "Set the provider's url attribute or the MGMT_URL environment variable.", attr("url")));
  else if (!isHttpUrl(url)) diagnostics.push(error("Invalid url", `url must be an http or https URL; got "${url}".`, attr("url")));
  if (!token) diagnostics.push(error("Missing token", "Set the provider's token attribute or the MGMT_TOKEN environment variable.", attr("token")));
  if (diagnostics.length > 0 || !url || !token) return { diagnostics };

  // The client, and zod that shapes its answers, load only here: most plugin starts only answer the
  // schema and validate a configuration, and loading them was most of such a start's time.
  const { MgmtClient } = await import("../client");
  const minDelay = known(config.retry_min_delay_ms) ?? PROVIDER_DEFAULTS.retryMinDelayMs;
  const maxRetries = known(config.max_retries);
  const secureContext = new URL(url).protocol === "https:" ? extraCaContext(env, log) : undefined;
  const clientWith = (credentials: string | Credentials) =>
    new MgmtClient({
      url,
      token: credentials,
      signal,
      ...(secureContext ? { secureContext } : {}),
      timeoutMs: (known(config.request_timeout) ?? PROVIDER_DEFAULTS.requestTimeoutSeconds) * 1000,
      ...(maxRetries !== undefined ? { maxRetries } : {}),
      retry: { baseDelayMs: minDelay, maxDelayMs: known(config.retry_max_delay_ms) ?? Math.max(minDelay, PROVIDER_DEFAULTS.retryMaxDelayMs) },
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
      onRetry: (e) =>
        log("info", `retrying ${e.method} ${e.path} in ${e.delayMs} ms (${e.reason})`, {
          operation: e.operation,
          attempt: e.attempt,
          delay_ms: e.delayMs,
          reason: e.reason,
        }),
    });
  const context = (client: MgmtClient, release: () => Promise<void>, actingTokenPrefix: string | null): { ctx: ProviderContext } => ({
    ctx: { client, reads: batchedReads(client, config.batch_reads !== false, now), openedTokens: new Map(), clientWith, release, actingTokenPrefix },
  });

  const euuid = typeof childBlock?.euuid === "string" ? childBlock.euuid : env.MGMT_CHILD_ACCOUNT_EUUID || undefined;
  const parent = clientWith(token);
  if (config.skip_credentials_validation !== true) {
    try {
      await parent.checkAccess({ signal });
    } catch (err) {
      await parent.close();
      return { diagnostics: [credentialsFailure(url, origins, err)] };
    }
  }
  if (euuid === undefined) return context(parent, () => parent.close(), token.slice(0, 16));
  let child;
  try {
    child = await childAccountClient({ parent, euuid, clientWith, log, now: () => now().getTime(), signal });
  } catch (err) {
    return { diagnostics: childAccountFailure(euuid, err, childBlock ? euuidPath : undefined) };
  }
  return context(child.client, child.close, null);
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}
