/**
 * A real node:http server on 127.0.0.1 (port 0) whose answers each test scripts, and which
 * records every request it saw.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  readonly method: string;
  /** Path and query as received (`/v4/profile/sshkeys?page=2`). */
  readonly url: string;
  readonly pathname: string;
  readonly query: Record<string, string>;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export type Reply =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string> }
  /** Accept the request and never answer. */
  | "hang"
  /** Drop the connection without answering. */
  | "destroy";

export type Handler = (req: SeenRequest, index: number) => Reply | Promise<Reply>;

export class ScriptedServer {
  readonly requests: SeenRequest[] = [];
  private queue: Reply[] = [];
  private handler: Handler | undefined;

  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://x");
        const seen: SeenRequest = {
          method: req.method ?? "",
          url: req.url ?? "",
          pathname: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        };
        void this.answer(seen, res);
      });
    });
  }

  static async start(): Promise<ScriptedServer> {
    const self = new ScriptedServer();
    await new Promise<void>((resolve) => self.server.listen(0, "127.0.0.1", resolve));
    return self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** API root as the client takes it. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v4`;
  }

  /** Answers for the next requests, in order (after the queue runs out, the handler answers). */
  reply(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answers every request not covered by reply(). */
  handle(handler: Handler): this {
    this.handler = handler;
    return this;
  }

  private async answer(req: SeenRequest, res: ServerResponse): Promise<void> {
    const index = this.requests.length;
    this.requests.push(req);
    const queued = this.queue.shift();
    const reply: Reply =
      queued ??
      (this.handler ? await this.handler(req, index) : { status: 599, json: { errors: [{ reason: `unscripted request ${req.method} ${req.url}` }] } });
    if (reply === "hang") return;
    if (reply === "destroy") {
      res.socket?.destroy();
      return;
    }
    const headers: Record<string, string> = { ...reply.headers };
    let body = "";
    if (reply.json !== undefined) {
      body = JSON.stringify(reply.json);
      headers["content-type"] ??= "application/json";
    } else if (reply.text !== undefined) {
      body = reply.text;
      headers["content-type"] ??= "text/plain";
    }
    res.writeHead(reply.status, headers);
    res.end(body);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A sleep that waits for nothing and records what was asked. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
    },
  };
}
