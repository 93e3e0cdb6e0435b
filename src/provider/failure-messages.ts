/**
 * What the user reads when the API or the network fails the provider: the API's reasons on the
 * attributes they name, the scope a 403 wanted, and, for configure's own checks, which setting
 * (attribute or environment variable) to change. The configuration itself is ./config.ts.
 */
import { ApiError, ApiRootError, NetworkError } from "../client/errors";
import { attr, error, type AttributePath, type Diagnostic } from "./framework/diagnostics";

export function childAccountFailure(euuid: string, err: unknown, path: AttributePath | undefined): Diagnostic[] {
  const summary = `Cannot act in child account ${euuid}`;
  if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
    const detail = `Obtaining the child account's proxy token needs a parent token with OAuth scope child_account:read_write, whose user is unrestricted or has the child_account_access grant. The API answered: ${err.message}`;
    return [error(summary, detail, path)];
  }
  if (err instanceof ApiError && err.status === 404) {
    return [
      error(summary, `The configured token's account has no active child account with euuid "${euuid}" (see data.mgmt_child_accounts). ${err.message}`, path),
    ];
  }
  return describeFailure(`act in child account ${euuid}`, err).map((d) => ({ ...d, ...(path ? { attribute: path } : {}) }));
}

/** Where the url and the token came from, as the user would look for them. */
export interface Origins {
  readonly url: string;
  readonly token: string;
}

/** Why configure's one check of the url and the token failed, and what to change. */
export function credentialsFailure(url: string, origins: Origins, err: unknown): Diagnostic {
  const skip = " (skip_credentials_validation = true skips this check for offline plans.)";
  if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
    const reason = err.errors.map((e) => e.reason).join("; ");
    return error(
      "Invalid API token",
      `The API at ${url} refused the token from ${origins.token}: ${reason} (HTTP ${err.status}). The token may be mistyped, expired or revoked: set ${origins.token} to a valid personal access token.${skip}`,
      origins.token === "MGMT_TOKEN" ? undefined : attr("token"),
    );
  }
  if (err instanceof ApiRootError) {
    return error("Not the Management API", `${err.message} Set ${origins.url} accordingly.`, origins.url === "MGMT_URL" ? undefined : attr("url"));
  }
  return error("Cannot reach the Management API", `${err instanceof Error ? err.message : String(err)}. The url comes from ${origins.url}.${skip}`);
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
  const hint =
    err instanceof ApiRootError || (err instanceof NetworkError && (err.kind === "connect" || err.code === "ENOTFOUND"))
      ? " Set the provider's url attribute or MGMT_URL to the API root."
      : "";
  return [error(`Failed to ${operation}`, (err instanceof Error ? err.message : String(err)) + hint)];
}

/**
 * For a 401 for a missing scope (upstream's status) or a 403, which scope the operation accepts,
 * as the API says in X-Accepted-OAuth-Scopes.
 */
export function scopeHint(err: ApiError): string {
  if ((err.status !== 401 && err.status !== 403) || err.acceptedScopes === undefined || err.acceptedScopes === "*") return "";
  return ` This operation accepts OAuth scope "${err.acceptedScopes}" (or its read_write form, or "*"): give the token that scope. If it already has it, the user is restricted and lacks the grant (see data.mgmt_grants).`;
}
