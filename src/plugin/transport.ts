/**
 * The HTTP/2 server the engine talks to: TLS with the engine's certificate as the only
 * accepted client (AutoMTLS), or plaintext h2 when the engine disabled plugin TLS.
 *
 * It never listens itself. serve.ts accepts connections on a plain socket and hands them
 * over, which lets the handshake line go out before this module is loaded and before the TLS
 * context exists, and the engine waits for the line on every start.
 *
 * With TLS, the handshake is node:tls's alone, and only a connection that completed it with the
 * engine's certificate gets HTTP/2 (h2/connection.ts): a refused client never sees a frame.
 */
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { type ServerStream, serveHttp2 } from "./h2/connection";
import type { IncomingHeaders } from "./h2/headers";
import type { Logger } from "./log";
import { type ServerIdentity, pinnedClientCertificate, serverTlsOptions } from "./tls";

export interface TransportOptions {
  /** The server's certificate and the engine's (PLUGIN_CLIENT_CERT, DER), the only client accepted. */
  readonly tls?: { readonly serverCert: ServerIdentity; readonly clientCertDer: Buffer };
  readonly log: Logger;
  readonly onStream: (stream: ServerStream, headers: IncomingHeaders) => void;
  /**
   * Runs once, while the engine dials and the TLS handshake waits for it (at the latest when a
   * connection completes it): the place to load what the first call needs. It may throw: the
   * transport then reports to onFailure instead of serving.
   */
  readonly prepare?: () => void;
  /** A failure of prepare; the plugin cannot serve. */
  readonly onFailure?: (e: unknown) => void;
}

export interface Transport {
  /** Feeds a connection accepted elsewhere into the server. */
  accept(socket: Socket): void;
}

export function createTransport(options: TransportOptions): Transport {
  const { log } = options;
  let prepared: "no" | "yes" | "failed" = "no";
  /** Runs prepare once; false if it failed (onFailure has been told). */
  const prepare = (): boolean => {
    if (prepared === "no") {
      try {
        options.prepare?.();
        prepared = "yes";
      } catch (e) {
        prepared = "failed";
        if (options.onFailure) options.onFailure(e);
        else throw e;
      }
    }
    return prepared === "yes";
  };

  /** Gives a connection to HTTP/2, or closes it when the plugin cannot serve. */
  const handOver = (socket: Socket): void => {
    if (!prepare()) {
      socket.destroy();
      return;
    }
    serveHttp2(socket, { onStream: options.onStream, log: (message, fields) => log("debug", message, fields) });
  };

  // What the first call needs loads while the engine reads the handshake line and dials.
  setImmediate(prepare);
  if (!options.tls) return { accept: handOver };

  const { serverCert, clientCertDer } = options.tls;
  const { createServer } = require("node:tls") as typeof import("node:tls");
  const secure = createServer(serverTlsOptions(serverCert));
  secure.on("tlsClientError", (e: Error) => log("warn", "TLS handshake with a client failed", { error: e.message }));
  // The TLS handshake accepts any client certificate (see serverTlsOptions); this is the check,
  // before the connection reaches HTTP/2: a refused client never gets an HTTP/2 frame.
  const isEngine = pinnedClientCertificate(clientCertDer);
  secure.on("secureConnection", (socket: TLSSocket) => {
    if (!isEngine(socket.getPeerX509Certificate())) {
      log("warn", "refused a TLS client that did not present PLUGIN_CLIENT_CERT");
      socket.destroy();
      return;
    }
    handOver(socket);
  });
  return { accept: (socket) => secure.emit("connection", socket) };
}
