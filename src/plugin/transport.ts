/**
 * The HTTP/2 server the engine talks to: TLS with the engine's certificate as the only
 * accepted client (AutoMTLS), or plaintext h2 when the engine disabled plugin TLS.
 *
 * It never listens itself. serve.ts accepts connections on a plain socket and hands them
 * over, which lets the handshake line go out before this module is loaded and before the TLS
 * context exists, and the engine waits for the line on every start.
 *
 * With TLS, the handshake is node:tls's alone, and only a connection that completed it with the
 * engine's certificate is handed to an HTTP/2 server (node:http2 on a plaintext server, which
 * does with a TLS socket exactly what its secure server does). So node:http2, the largest thing
 * the first answer needs, is loaded while the engine dials and while the handshake waits for
 * the engine's half of it, not before the handshake can begin.
 */
import type { X509Certificate } from "node:crypto";
import type * as http2 from "node:http2";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Logger } from "./log";
import { type SelfSignedCertificate, pinnedClientCertificate, serverTlsOptions } from "./tls";

export interface TransportOptions {
  /** The server's certificate and the engine's (PLUGIN_CLIENT_CERT), the only client accepted. */
  readonly tls?: { readonly serverCert: SelfSignedCertificate; readonly clientCert: X509Certificate };
  readonly log: Logger;
  readonly onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void;
  /**
   * Runs once, while the engine dials and the TLS handshake waits for it (at the latest when a
   * connection completes it): the place to load what the first call needs. It may throw: the
   * transport then reports to onFailure instead of serving.
   */
  readonly prepare?: () => void;
  /** A failure of prepare or of loading node:http2; the plugin cannot serve. */
  readonly onFailure?: (e: unknown) => void;
}

export interface Transport {
  /** Feeds a connection accepted elsewhere into the server. */
  accept(socket: Socket): void;
}

/**
 * What node:http2 loads, in pieces of a millisecond or two (it is about ten in all): loaded one
 * event-loop turn at a time, a ClientHello or the engine's half of the handshake that arrives
 * meanwhile is answered after one piece rather than after all of them. Only timing depends on
 * this list; node:http2 loads whatever is missing from it.
 */
const HTTP2_PARTS = ["node:assert", "node:http", "node:fs/promises"];

export function createTransport(options: TransportOptions): Transport {
  const { log } = options;
  let h2: http2.Http2Server | undefined;
  let failed = false;
  /** What is left to load before the HTTP/2 server can be made, first to last. */
  const steps: (() => void)[] = [() => options.prepare?.(), ...HTTP2_PARTS.map((name) => () => require(name))];
  const run = (step: () => void): void => {
    try {
      step();
    } catch (e) {
      failed = true;
      if (options.onFailure) options.onFailure(e);
      else throw e;
    }
  };
  /** The HTTP/2 server, made on first need; undefined (and onFailure told) if it cannot be made. */
  const sessions = (): http2.Http2Server | undefined => {
    while (!failed && !h2 && steps.length > 0) run(steps.shift()!);
    if (h2 || failed) return h2;
    run(() => {
      const { createServer } = require("node:http2") as typeof import("node:http2");
      // Responses up to the 256 MiB message limit may sit in the session while other calls
      // arrive; node's default 10 MB session budget would then refuse new streams.
      const server = createServer({ maxSessionMemory: 512 });
      server.on("sessionError", (e: Error) => log("debug", "HTTP/2 session error", { error: e.message }));
      server.on("stream", options.onStream);
      h2 = server;
    });
    return h2;
  };
  /** Loads the next piece, then yields to the event loop, until the server is made. */
  const warmUp = () => {
    if (failed || h2) return;
    if (steps.length > 0) run(steps.shift()!);
    else sessions();
    setImmediate(warmUp);
  };

  /** Gives a connection to HTTP/2, or closes it when the server cannot be made. */
  const handOver = (socket: Socket): void => {
    const server = sessions();
    if (server) server.emit("connection", socket);
    else socket.destroy();
  };

  if (!options.tls) return { accept: handOver };

  const { serverCert, clientCert } = options.tls;
  const { createServer } = require("node:tls") as typeof import("node:tls");
  const secure = createServer(serverTlsOptions(serverCert));
  secure.on("tlsClientError", (e: Error) => log("warn", "TLS handshake with a client failed", { error: e.message }));
  // The TLS handshake accepts any client certificate (see serverTlsOptions); this is the check,
  // before the connection reaches HTTP/2: a refused client never gets an HTTP/2 frame.
  const isEngine = pinnedClientCertificate(clientCert);
  secure.on("secureConnection", (socket: TLSSocket) => {
    if (!isEngine(socket.getPeerX509Certificate())) {
      log("warn", "refused a TLS client that did not present PLUGIN_CLIENT_CERT");
      socket.destroy();
      return;
    }
    handOver(socket);
  });
  // The TLS server is ready for the engine; the rest loads while the engine dials and while the
  // handshake waits for its half, a piece per event-loop turn.
  setImmediate(warmUp);
  return { accept: (socket) => secure.emit("connection", socket) };
}
