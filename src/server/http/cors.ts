/**
 * CORS as upstream answers it, so a browser application can call the API: every answer under
 * `/v4` carries upstream's `Access-Control-*` headers (its recorded answers show them on every
 * operation, errors included), and a preflight (`OPTIONS` on any `/v4` path) is answered 204
 * with them, before authentication, since a browser sends no credentials on one.
 *
 * A small hook rather than @fastify/cors: the header set is upstream's, fixed, and that plugin's
 * preflight route (`OPTIONS *`) would meet the router's own OPTIONS answers (405) on every path.
 */
import type { FastifyInstance } from "fastify";
import { API_PREFIX } from "./router";

/** Which origins may read answers: any (upstream's `*`), or these serialized origins (`https://app.example:8443`). */
export type CorsOrigins = "*" | readonly string[];

/** Upstream's headers, word for word; we expose our rate-limit headers and `Retry-After` too. */
export const CORS_HEADERS = {
  "access-control-allow-credentials": "true",
  "access-control-allow-headers": "Authorization, Origin, X-Requested-With, Content-Type, Accept, X-Filter",
  "access-control-allow-methods": "HEAD, GET, OPTIONS, POST, PUT, DELETE",
  "access-control-expose-headers":
    "X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Status, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After",
} as const;

/** Whether `url` (already moved from `/v4beta`) is under the API's prefix. */
const isApiPath = (url: string): boolean => url.startsWith(API_PREFIX) && (url.length === API_PREFIX.length || "/?#".includes(url[API_PREFIX.length]!));

/**
 * The serialized origin of a `--cors-origin` value (`https://App.example:443/` →
 * `https://app.example`), or undefined when it names no origin (a path, no host, `null`).
 */
export function originOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.origin === "null" || url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return undefined;
  return url.pathname === "/" ? url.origin : undefined;
}

export function installCors(app: FastifyInstance, origins: CorsOrigins): void {
  const allowed = origins === "*" ? null : new Set(origins);
  app.addHook("onRequest", (req, reply, done) => {
    if (!isApiPath(req.url)) {
      done();
      return;
    }
    if (allowed === null) {
      reply.header("access-control-allow-origin", "*");
    } else {
      // The answer depends on the Origin asked from: caches must keep them apart.
      reply.header("vary", "Origin");
      const origin = req.headers.origin;
      if (origin !== undefined && allowed.has(origin)) reply.header("access-control-allow-origin", origin);
    }
    reply.headers(CORS_HEADERS);
    if (req.method === "OPTIONS") {
      void reply.code(204).send();
      return;
    }
    done();
  });
}
