/**
 * The `Host` header as RFC 9112 (3.2) asks a server to check it: an HTTP/1.1 request without
 * one, any request with more than one `Host` line, or one whose value is not `uri-host [":"
 * port]` (RFC 3986) is refused with 400. An empty value is valid (a target with no authority).
 */
import type { IncomingMessage } from "node:http";
import { isIPv6 } from "node:net";

/** RFC 3986 reg-name (an IPv4 address is one too): unreserved, sub-delims and percent-escapes. */
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const IP_FUTURE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;
const HOST_PORT = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d*))?$/;

/** Whether `value` is `uri-host [":" port]`. */
export function isHostValue(value: string): boolean {
  const match = HOST_PORT.exec(value);
  if (match === null) return false;
  const host = match[1]!;
  if (!host.startsWith("[")) return REG_NAME.test(host);
  const literal = host.slice(1, -1);
  return isIPv6(literal) || IP_FUTURE.test(literal);
}

/** What is wrong with the request's Host header, or null. */
export function hostProblem(req: IncomingMessage): string | null {
  let count = 0;
  // Node keeps only the first of repeated Host lines in `headers`; the raw list has them all.
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === "host") count++;
  if (count > 1) return "Only one Host header is allowed";
  const host = req.headers.host;
  if (host === undefined) return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 ? "Host header is required" : null;
  return isHostValue(host) ? null : "Host header must be a host name or address, with an optional port";
}
