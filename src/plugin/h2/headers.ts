/**
 * HTTP/2 request and response header rules (RFC 9113 §8.2–8.3) as pure functions: what makes a
 * request's header list malformed, and how a response's headers become an ordered field list.
 */
import { type HeaderField, HpackEncoder } from "./hpack";

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
    if (name.length === 0 || hasUpperCase(name)) return { ok: false, reason: `header name ${JSON.stringify(name)} is not lower-case` };
    if (hasLineBreakOrNul(value)) return { ok: false, reason: `header ${name} holds NUL, CR or LF` };
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

// Character loops rather than regular expressions: these run on every field of every request,
// mostly before the JIT has warmed up, where a loop is several times cheaper.
function hasUpperCase(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return true;
  }
  return false;
}

function hasLineBreakOrNul(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0 || c === 0x0a || c === 0x0d) return true;
  }
  return false;
}

/** Response or trailer headers as fields, pseudo-headers first as §8.3 requires. */
export function responseFields(headers: OutgoingHeaders): HeaderField[] {
  const pseudo: HeaderField[] = [];
  const regular: HeaderField[] = [];
  for (const [name, value] of Object.entries(headers)) (name.startsWith(":") ? pseudo : regular).push([name.toLowerCase(), String(value)]);
  return [...pseudo, ...regular];
}

/** Header blocks of preset header lists, by the list's identity. */
const presetBlocks = new WeakMap<OutgoingHeaders, Buffer>();

/**
 * A header list sent unchanged on many streams (a gRPC server's response headers, its OK
 * trailers), HPACK-encoded once here instead of on every response. Sound because our encoder
 * never touches the dynamic table: the same list always encodes to the same bytes.
 */
export function presetHeaders(headers: OutgoingHeaders): OutgoingHeaders {
  const frozen = Object.freeze({ ...headers });
  presetBlocks.set(frozen, new HpackEncoder().encode(responseFields(frozen)));
  return frozen;
}

/** The encoded block of a preset header list; undefined for any other list. */
export const presetBlock = (headers: OutgoingHeaders): Buffer | undefined => presetBlocks.get(headers);
