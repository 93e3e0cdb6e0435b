/**
 * HTTP/2 request and response header rules (RFC 9113 §8.2–8.3) as pure functions: what makes a
 * request's header list malformed, and how a response's headers become an ordered field list.
 */
import type { HeaderField } from "./hpack";

export type IncomingHeaders = Readonly<Record<string, string>>;
export type OutgoingHeaders = Readonly<Record<string, string | number>>;

const REQUEST_PSEUDO = new Set([":method", ":scheme", ":authority", ":path"]);
/** Fields that belong to one HTTP/1.1 connection and make an HTTP/2 message malformed (§8.2.2). */
const CONNECTION_SPECIFIC = new Set(["connection", "proxy-connection", "keep-alive", "transfer-encoding", "upgrade"]);

export type RequestCheck = { readonly ok: true; readonly headers: IncomingHeaders } | { readonly ok: false; readonly reason: string };

/** A request's header fields as one record, or why they are malformed (a stream error PROTOCOL_ERROR). */
export function requestHeaders(fields: readonly HeaderField[]): RequestCheck {
  const headers: Record<string, string> = Object.create(null);
  let regularSeen = false;
  for (const [name, value] of fields) {
    if (name.length === 0 || /[A-Z]/.test(name)) return { ok: false, reason: `header name ${JSON.stringify(name)} is not lower-case` };
    if (/[\0\r\n]/.test(value)) return { ok: false, reason: `header ${name} holds NUL, CR or LF` };
    if (name.startsWith(":")) {
      if (regularSeen) return { ok: false, reason: `pseudo-header ${name} after a regular header` };
      if (!REQUEST_PSEUDO.has(name)) return { ok: false, reason: `unknown pseudo-header ${name}` };
      if (name in headers) return { ok: false, reason: `pseudo-header ${name} repeated` };
      headers[name] = value;
      continue;
    }
    regularSeen = true;
    if (CONNECTION_SPECIFIC.has(name)) return { ok: false, reason: `connection-specific header ${name}` };
    if (name === "te" && value !== "trailers") return { ok: false, reason: `te other than "trailers"` };
    headers[name] = name in headers ? `${headers[name]}${name === "cookie" ? "; " : ", "}${value}` : value;
  }
  for (const required of [":method", ":scheme", ":path"]) {
    if (!headers[required]) return { ok: false, reason: `${required} missing` };
  }
  return { ok: true, headers };
}

/** Response or trailer headers as fields, pseudo-headers first as §8.3 requires. */
export function responseFields(headers: OutgoingHeaders): HeaderField[] {
  const pseudo: HeaderField[] = [];
  const regular: HeaderField[] = [];
  for (const [name, value] of Object.entries(headers)) (name.startsWith(":") ? pseudo : regular).push([name.toLowerCase(), String(value)]);
  return [...pseudo, ...regular];
}
