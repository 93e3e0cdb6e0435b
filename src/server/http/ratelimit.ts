/**
 * Optional rate limiting (off unless `--rate-limit N` / `ServerOptions.rateLimit`): N requests
 * per caller per minute window of the injected clock. Windows are aligned to the clock's
 * minutes (a window ends at the next whole minute), so tests move through them with the clock.
 * The caller is its bearer credential (hashed), or its address when it sends none.
 * Answers carry `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (epoch
 * seconds of the window's end); a refused request gets 429 with `Retry-After` (seconds).
 */
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Clock } from "../clock";
import { HttpError } from "./errors";
import { API_PREFIX } from "./router";

export const RATE_WINDOW_MS = 60_000;
export const RATE_LIMITED_REASON = "Too many requests; try again after the Retry-After seconds";

interface Window {
  start: number;
  used: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one request for `key`; what to answer with. */
  take(key: string): { allowed: boolean; remaining: number; resetMs: number; retryAfter: number } {
    const now = this.clock.now().getTime();
    const start = Math.floor(now / RATE_WINDOW_MS) * RATE_WINDOW_MS;
    let w = this.windows.get(key);
    if (w === undefined || w.start !== start) {
      // Forget finished windows now and then, so the map stays small.
      if (this.windows.size > 10_000) for (const [k, old] of this.windows) if (old.start !== start) this.windows.delete(k);
      w = { start, used: 0 };
      this.windows.set(key, w);
    }
    const resetMs = start + RATE_WINDOW_MS;
    const allowed = w.used < this.limit;
    if (allowed) w.used += 1;
    return { allowed, remaining: Math.max(0, this.limit - w.used), resetMs, retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)) };
  }

  clear(): void {
    this.windows.clear();
  }
}

const callerKey = (req: FastifyRequest): string => {
  const auth = req.headers.authorization;
  return auth === undefined ? `ip:${req.ip}` : `auth:${createHash("sha256").update(auth).digest("hex")}`;
};

/** Adds the limiter to every `/v4` request (the admin namespace is never limited). */
export function installRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  app.addHook("onRequest", async (req, reply) => {
    if (!req.url.startsWith(`${API_PREFIX}/`) && req.url !== API_PREFIX) return;
    const taken = limiter.take(callerKey(req));
    reply.header("x-ratelimit-limit", String(limiter.limit));
    reply.header("x-ratelimit-remaining", String(taken.remaining));
    reply.header("x-ratelimit-reset", String(Math.floor(taken.resetMs / 1000)));
    if (!taken.allowed) {
      throw new HttpError(429, [{ reason: RATE_LIMITED_REASON }], { "retry-after": String(taken.retryAfter) });
    }
  });
}
