/**
 * A loopback HTTP proxy in front of a real `mgmt serve` that misbehaves the way bad networks
 * and overloaded APIs do: it drops the answer of a request the server already processed,
 * answers 429/503 itself without forwarding, delays, or holds an answer the server has already
 * given (so a write is made while its client still waits). Which requests it hits is decided by a
 * seeded rule, so a run is reproducible. Loopback only; every request is bounded by the server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";

export type Fault =
  /** Forward, let the server commit, then close the connection without the answer. */
  | { readonly kind: "drop-after" }
  /** Answer this status without forwarding (`retryAfter` seconds, when given). */
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: number }
  /** Wait, then forward. */
  | { readonly kind: "delay"; readonly ms: number }
  /** Forward at once, let the server act, then hold its answer this long (the client may have gone by then). */
  | { readonly kind: "hold-answer"; readonly ms: number };

export type FaultRule = (method: string, path: string) => Fault | undefined;

export interface ProxyCounters {
  forwarded: number;
  dropped: number;
  refused: number;
  delayed: number;
  /** Requests per method as clients sent them (faulted or not). */
  byMethod: Record<string, number>;
  /** Every request as `METHOD /path` (below /v4, without the query), in arrival order. */
  seen: string[];
  /** Every bearer token clients sent: what a test must never find in what the engine wrote. */
  bearers: Set<string>;
}

/** Mulberry32: a small seeded generator, so fault sequences repeat run to run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An overloaded API: 30% of requests answered 503 and 30% 429 with this Retry-After (seconds),
 * and a further 10% (when `delayMs` is given) held back that long before they pass.
 */
export const overloaded =
  (random: () => number, { retryAfter, delayMs }: { retryAfter: number; delayMs?: number }): FaultRule =>
  () => {
    const r = random();
    if (r < 0.3) return { kind: "status", status: 503 };
    if (r < 0.6) return { kind: "status", status: 429, retryAfter };
    if (delayMs !== undefined && r < 0.7) return { kind: "delay", ms: delayMs };
    return undefined;
  };

export class FaultProxy {
  readonly counters: ProxyCounters = { forwarded: 0, dropped: 0, refused: 0, delayed: 0, byMethod: {}, seen: [], bearers: new Set() };
  rule: FaultRule = () => undefined;
  private readonly server: Server;
  /** Requests forwarded to the server and not yet answered by it. */
  private forwarding = 0;
  private idle: (() => void)[] = [];

  private constructor(private readonly upstream: string) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  /** `upstream` is the server's API root (`http://127.0.0.1:PORT/v4`). */
  static async start(upstream: string): Promise<FaultProxy> {
    const proxy = new FaultProxy(new URL(upstream).origin);
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  /** The API root through the proxy. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v4`;
  }

  /** Resolves once the server has answered every request forwarded to it. */
  settled(): Promise<void> {
    return this.forwarding === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").replace(/\?.*$/, "").replace(/^\/v4/, "");
    this.counters.byMethod[method] = (this.counters.byMethod[method] ?? 0) + 1;
    this.counters.seen.push(`${method} ${path}`);
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (bearer !== undefined) this.counters.bearers.add(bearer);
    const fault = this.rule(method, path);
    if (fault?.kind === "status") {
      this.counters.refused++;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
      res.writeHead(fault.status, headers).end(JSON.stringify({ errors: [{ reason: "Injected by the fault proxy" }] }));
      return;
    }
    if (fault?.kind === "delay") {
      this.counters.delayed++;
      await new Promise((resolve) => setTimeout(resolve, fault.ms));
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "connection" && k !== "content-length")) as Record<
      string,
      string
    >;
    this.forwarding++;
    let answer: Awaited<ReturnType<typeof request>>;
    let body: Buffer;
    try {
      answer = await request(this.upstream + (req.url ?? "/"), {
        method: method as "GET",
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      body = Buffer.from(await answer.body.arrayBuffer());
    } finally {
      if (--this.forwarding === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
    this.counters.forwarded++;
    if (fault?.kind === "drop-after") {
      this.counters.dropped++;
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === "hold-answer") {
      this.counters.delayed++;
      await new Promise((resolve) => setTimeout(resolve, fault.ms));
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(answer.headers)) if (typeof v === "string" && k !== "transfer-encoding" && k !== "connection") out[k] = v;
    // The client may have gone while the answer was held: the server acted all the same.
    if (!res.destroyed) res.writeHead(answer.statusCode, out).end(body);
  }
}
