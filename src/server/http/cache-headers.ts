/**
 * Upstream's caching headers on every API answer: `Cache-Control: no-cache, no-store` (an
 * answer is one user's, as of now) and `Vary: Authorization, X-Filter` (the same URL answers
 * differently per token and per filter), so no cache between a client and the API keeps or
 * mixes them. Recorded upstream answers (linodego's test cassettes) carry both everywhere.
 */
import type { FastifyInstance } from "fastify";
import { API_PREFIX } from "./router";

export const CACHE_HEADERS = { "cache-control": "no-cache, no-store", vary: "Authorization, X-Filter" } as const;

const isApiPath = (url: string): boolean => url.startsWith(API_PREFIX) && (url.length === API_PREFIX.length || "/?#".includes(url[API_PREFIX.length]!));

/** Installed after CORS, so a `Vary: Origin` it set (for `--cors-origin`) is kept beside ours. */
export function installCacheHeaders(app: FastifyInstance): void {
  app.addHook("onRequest", (req, reply, done) => {
    if (isApiPath(req.url)) {
      const earlier = reply.getHeader("vary");
      reply.header("cache-control", CACHE_HEADERS["cache-control"]);
      reply.header("vary", earlier === undefined ? CACHE_HEADERS.vary : `${CACHE_HEADERS.vary}, ${String(earlier)}`);
    }
    done();
  });
}
