/**
 * The HTTP/2 server the engine talks to: TLS with the engine's certificate as the only
 * accepted client (AutoMTLS), or plaintext h2 when the engine disabled plugin TLS.
 *
 * It never listens itself. serve.ts accepts connections on a plain socket and hands them
 * over, which lets the handshake line go out before this module (node:http2) is loaded and
 * before the TLS context exists, and the engine waits for the line on every start.
 */
import * as http2 from "node:http2";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Logger } from "./log";
import { type SelfSignedCertificate, pinnedClientCertificate, serverTlsOptions } from "./tls";

export interface TransportOptions {
  readonly tls?: { readonly serverCert: SelfSignedCertificate; readonly clientCertPem: string };
  readonly log: Logger;
  readonly onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void;
}

export interface Transport {
  /** Feeds a connection accepted elsewhere into the server. */
  accept(socket: Socket): void;
}

export function createTransport(options: TransportOptions): Transport {
  const { log } = options;
  // Responses up to the 256 MiB message limit may sit in the session while other calls
  // arrive; node's default 10 MB session budget would then refuse new streams.
  const base = { maxSessionMemory: 512 };
  let server: http2.Http2Server | http2.Http2SecureServer;
  if (options.tls) {
    const { serverCert, clientCertPem } = options.tls;
    const secure = http2.createSecureServer({ ...base, ...serverTlsOptions(serverCert) });
    secure.on("tlsClientError", (e: Error) => log("warn", "TLS handshake with a client failed", { error: e.message }));
    // The TLS handshake accepts any client certificate (see serverTlsOptions); this is the check.
    // It runs after http2 has set up its session on the socket but in the same turn, before the
    // session has read or sent a byte, so a refused client never gets an HTTP/2 frame through.
    const isEngine = pinnedClientCertificate(clientCertPem);
    secure.on("secureConnection", (socket: TLSSocket) => {
      if (isEngine(socket.getPeerX509Certificate())) return;
      log("warn", "refused a TLS client that did not present PLUGIN_CLIENT_CERT");
      socket.destroy();
    });
    server = secure;
  } else {
    server = http2.createServer(base);
  }
  server.on("sessionError", (e: Error) => log("debug", "HTTP/2 session error", { error: e.message }));
  server.on("stream", options.onStream);
  return { accept: (socket) => server.emit("connection", socket) };
}
