/**
 * The small gRPC server the plugin needs, directly on HTTP/2 streams: unary and server-streaming
 * methods routed by `:path`. @grpc/grpc-js would do this too, but loading it costs about as
 * much as starting node itself, and the engine starts the plugin several times per command.
 *
 * A call: request HEADERS (`content-type: application/grpc…`), DATA holding one
 * length-prefixed message, END_STREAM. A response: HEADERS (`:status 200`), DATA messages,
 * then trailers with `grpc-status`/`grpc-message`. Failures before any message is sent use a
 * "trailers-only" response (status in the one HEADERS frame), as gRPC servers do.
 */
import type { ServerStream } from "../h2/connection";
import { type IncomingHeaders, type OutgoingHeaders, presetHeaders } from "../h2/headers";
import { FrameDecoder, encodeFrame } from "./framing";
import { GrpcError, Status, type StatusCode, encodeGrpcMessage } from "./status";
import { mark, now, tracing } from "../trace";

// The headers and trailers of every successful call, encoded once for all of them.
const RESPONSE_HEADERS = presetHeaders({ ":status": 200, "content-type": "application/grpc" });
const OK_TRAILERS = presetHeaders({ "grpc-status": String(Status.OK) });
const OK_TRAILERS_ONLY = presetHeaders({ ":status": 200, "content-type": "application/grpc", "grpc-status": String(Status.OK) });

export interface CallContext {
  /** `/package.Service/Method` */
  readonly path: string;
  /** Aborted when the client cancels or the connection drops. */
  readonly signal: AbortSignal;
  /** Runs once the response has been handed to the socket (or the call was torn down). */
  afterResponse(callback: () => void): void;
}

export interface ServerStreamCall extends CallContext {
  /** Sends one message; resolves when the stream can take more (backpressure). */
  send(message: Uint8Array): Promise<void>;
}

export type UnaryHandler = (request: Uint8Array, call: CallContext) => Uint8Array | Promise<Uint8Array>;
export type ServerStreamHandler = (request: Uint8Array, call: ServerStreamCall) => void | Promise<void>;

type Route = { readonly kind: "unary"; readonly handler: UnaryHandler } | { readonly kind: "stream"; readonly handler: ServerStreamHandler };

export interface GrpcServerOptions {
  /** Called for handler failures that are not GrpcErrors, before they become INTERNAL. */
  readonly onError?: (path: string, error: unknown) => void;
}

export class GrpcServer {
  private readonly routes = new Map<string, Route>();

  constructor(private readonly options: GrpcServerOptions = {}) {}

  unary(path: string, handler: UnaryHandler): this {
    this.routes.set(path, { kind: "unary", handler });
    return this;
  }

  serverStream(path: string, handler: ServerStreamHandler): this {
    this.routes.set(path, { kind: "stream", handler });
    return this;
  }

  handleStream(stream: ServerStream, headers: IncomingHeaders): void {
    const call = new Call(stream, headers[":path"] ?? "", this.options);
    stream.on("close", () => call.abort());

    const contentType = headers["content-type"] ?? "";
    if (headers[":method"] !== "POST" || !/^application\/grpc([+;]|$)/.test(contentType)) {
      // Not gRPC at all: plain HTTP answer, as the spec asks (415 for a wrong content type).
      call.respondHttp(headers[":method"] !== "POST" ? 405 : 415);
      return;
    }
    const route = this.routes.get(call.path);
    if (!route) {
      call.finish(Status.UNIMPLEMENTED, `unknown method ${call.path}`);
      return;
    }

    const decoder = new FrameDecoder();
    const messages: Uint8Array[] = [];
    let failed = false;
    stream.on("data", (chunk: Buffer) => {
      if (failed) return;
      try {
        messages.push(...decoder.push(chunk));
      } catch (e) {
        failed = true;
        call.fail(e);
      }
    });
    stream.on("end", () => {
      if (failed || call.done) return;
      if (decoder.partial || messages.length !== 1) {
        call.finish(Status.INTERNAL, `expected exactly one request message, got ${messages.length}${decoder.partial ? " and a truncated one" : ""}`);
        return;
      }
      void call.run(route, messages[0]);
    });
  }
}

/** One RPC's response side: headers once, messages, then exactly one status. */
class Call implements ServerStreamCall {
  /** Made when a handler asks for the signal: few do, and every call would pay for it. */
  private controller: AbortController | undefined;
  private aborted = false;
  private headersSent = false;
  private readonly endCallbacks: (() => void)[] = [];
  done = false;

  constructor(
    private readonly stream: ServerStream,
    readonly path: string,
    private readonly options: GrpcServerOptions,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  afterResponse(callback: () => void): void {
    this.endCallbacks.push(callback);
  }

  abort(): void {
    if (!this.done) {
      this.done = true;
      this.aborted = true;
      this.controller?.abort();
      this.ended();
    }
  }

  private ended(): void {
    for (const callback of this.endCallbacks.splice(0)) callback();
  }

  async run(route: Route, request: Uint8Array): Promise<void> {
    if (tracing()) {
      const start = now();
      this.afterResponse(() => mark("rpc", { path: this.path, start }));
    }
    try {
      if (route.kind === "unary") {
        // Headers, message and trailers in one go: they leave in one write.
        const response = await route.handler(request, this);
        if (!this.done && this.writable()) {
          const frame = encodeFrame(response);
          this.sendHeaders();
          this.stream.write(frame);
        }
      } else {
        await route.handler(request, this);
      }
      this.finish(Status.OK, "");
    } catch (e) {
      this.fail(e);
    }
  }

  send(message: Uint8Array): Promise<void> {
    if (this.done || !this.writable()) return Promise.reject(new GrpcError(Status.CANCELLED, "call already ended"));
    const frame = encodeFrame(message);
    this.sendHeaders();
    return new Promise((resolve) => {
      if (this.stream.write(frame)) resolve();
      else this.stream.once("drain", resolve).once("close", resolve);
    });
  }

  fail(e: unknown): void {
    if (e instanceof GrpcError) {
      this.finish(e.code, e.message);
    } else {
      this.options.onError?.(this.path, e);
      this.finish(Status.INTERNAL, e instanceof Error ? e.message : String(e));
    }
  }

  finish(code: StatusCode, message: string): void {
    if (this.done) return;
    this.done = true;
    if (!this.writable()) {
      this.ended();
      return;
    }
    this.stream.once("close", () => this.ended());
    if (this.headersSent) {
      this.stream.end(code === Status.OK && !message ? OK_TRAILERS : statusTrailers(code, message));
    } else {
      this.headersSent = true;
      this.stream.respond(code === Status.OK && !message ? OK_TRAILERS_ONLY : { ...RESPONSE_HEADERS, ...statusTrailers(code, message) }, { endStream: true });
    }
  }

  respondHttp(statusCode: number): void {
    this.done = true;
    if (this.writable()) this.stream.respond({ ":status": statusCode }, { endStream: true });
  }

  private sendHeaders(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.stream.respond(RESPONSE_HEADERS);
  }

  private writable(): boolean {
    return !this.stream.closed;
  }
}

function statusTrailers(code: StatusCode, message: string): OutgoingHeaders {
  const status: Record<string, string> = { "grpc-status": String(code) };
  if (message) status["grpc-message"] = encodeGrpcMessage(message);
  return status;
}
