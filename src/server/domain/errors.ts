/**
 * What can go wrong in a domain operation, in domain terms. The HTTP layer maps each kind to
 * a status code; the items are already in the contract's error-body shape.
 */
import type { ErrorItem } from "../../contract";

export type ErrorKind = "invalid" | "unauthenticated" | "forbidden" | "not_found" | "conflict";

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly items: ErrorItem[],
  ) {
    super(items.map((i) => (i.field ? `${i.field}: ${i.reason}` : i.reason)).join("; "));
    this.name = "DomainError";
  }
}

export const invalid = (field: string | null, reason: string): DomainError => new DomainError("invalid", [field === null ? { reason } : { field, reason }]);

export const notFound = (): DomainError => new DomainError("not_found", [{ reason: "Not found" }]);

/** Missing, malformed, unknown, expired or revoked token: upstream does not say which. */
export const invalidToken = (): DomainError => new DomainError("unauthenticated", [{ reason: "Invalid Token" }]);

/**
 * A valid token without the scope the operation needs: upstream's text and upstream's status,
 * 401 (linode-cli tells it from "Invalid Token" by the reason, not the status).
 */
export const scopeMissing = (): DomainError => new DomainError("unauthenticated", [{ reason: "Your OAuth token is not authorized to use this endpoint." }]);

/** An operation the acting user may not perform (a rule, not a missing scope). */
export const forbidden = (field: string | null, reason: string): DomainError => new DomainError("forbidden", [field === null ? { reason } : { field, reason }]);
