/**
 * gRPC status codes and the trailer encoding of status messages (grpc/grpc
 * doc/PROTOCOL-HTTP2.md). Only the codes this server produces are named.
 */

export const Status = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

export type StatusCode = (typeof Status)[keyof typeof Status];

/** Marks GrpcErrors whichever copy of this module made them (Symbol.for is one registry per process). */
const GRPC_ERROR = Symbol.for("terraform-provider-mgmt.GrpcError");

/**
 * Thrown by a handler (or the transport) to end a call with a specific status.
 *
 * The plugin's bundles each carry this module (dist/services.js has the server that catches
 * these errors, dist/calls.js the services that throw them), so `instanceof` goes by a mark the
 * instances carry rather than by which copy of the class made them.
 */
export class GrpcError extends Error {
  readonly [GRPC_ERROR] = true;

  constructor(
    readonly code: StatusCode,
    message: string,
  ) {
    super(message);
    this.name = "GrpcError";
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as { [GRPC_ERROR]?: unknown })[GRPC_ERROR] === true;
  }
}

/**
 * `grpc-message` is percent-encoded UTF-8: printable ASCII except '%' travels as is, every
 * other byte as %XX. Header values must be ASCII, so a raw provider message with a newline
 * or non-Latin text would otherwise break the trailers.
 */
export function encodeGrpcMessage(message: string): string {
  let out = "";
  for (const byte of Buffer.from(message, "utf8")) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function decodeGrpcMessage(encoded: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const hex = encoded[i] === "%" ? encoded.slice(i + 1, i + 3) : "";
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(encoded.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
