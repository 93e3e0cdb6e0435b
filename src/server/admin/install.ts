/**
 * Wires the optional runtime features into the Fastify app: the rate limiter, injected
 * faults and request counters on `/v4`, and the admin namespace's endpoints.
 */
import type { FastifyInstance } from "fastify";
import { HttpError } from "../http/errors";
import { installRateLimit } from "../http/ratelimit";
import { API_PREFIX } from "../http/router";
import { ADMIN_PREFIX, AdminRouter, type AdminContext } from "./context";
import { DEFAULT_FAULT_REASON } from "./faults";
import { ADMIN_MODULES } from "./modules";

const isApi = (url: string): boolean => url === API_PREFIX || url.startsWith(`${API_PREFIX}/`) || url.startsWith(`${API_PREFIX}?`);
const pathOf = (url: string): string => url.split("?")[0]!;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function installAdmin(app: FastifyInstance, ctx: AdminContext): void {
  if (ctx.limiter !== null) installRateLimit(app, ctx.limiter);

  app.addHook("onRequest", async (req, reply) => {
    if (!isApi(req.url)) return;
    const fault = ctx.faults.pick(req.method, req.routeOptions.url, pathOf(req.url));
    if (fault === undefined) return;
    if (fault.latency_ms !== undefined && fault.latency_ms > 0) await sleep(fault.latency_ms);
    if (fault.drop === true) {
      ctx.counters.record(req.method, req.routeOptions.url ?? pathOf(req.url), "dropped");
      reply.hijack();
      req.raw.socket.destroy();
      return;
    }
    if (fault.status !== undefined) {
      throw new HttpError(
        fault.status,
        [{ reason: fault.reason ?? DEFAULT_FAULT_REASON }],
        fault.retry_after === undefined ? {} : { "retry-after": String(fault.retry_after) },
      );
    }
  });

  app.addHook("onResponse", async (req, reply) => {
    if (!isApi(req.url)) return;
    ctx.counters.record(req.method, req.routeOptions.url ?? "(no route)", reply.statusCode);
  });

  const router = new AdminRouter(app, ctx.token, (work) => ctx.store.transaction(() => work()));
  router.get("", "List the admin endpoints", async () => ({ body: { data: router.endpoints } }));
  for (const module of ADMIN_MODULES) module.register(router, ctx);
}

export { ADMIN_PREFIX };
