/**
 * The provider as one long-lived process the engines attach to (`mgmt warm`), instead of the
 * three to five processes an engine starts and waits for per command: the engines' reattach
 * mode (TF_REATTACH_PROVIDERS, as terraform-plugin-go's debug mode serves it).
 *
 * The engine reaches a reattached provider without go-plugin's AutoMTLS, so this serves
 * plaintext HTTP/2 on a unix socket in a fresh private folder, which only this user can open.
 * Each connection is one provider instance, as one process is when the engine starts it: the
 * engine opens a connection where it would have started a process (per command, per provider
 * block), configures it and calls it; what configure acquired is released when the connection
 * ends. With `Test: true` in the reattach entry the engine never stops the process (go-plugin's
 * client leaves it running and sends no Shutdown), so this lives until SIGTERM or its parent goes.
 *
 * The first stdout line is go-plugin's handshake line without a certificate; `mgmt warm`
 * turns it into the reattach entry. Nothing else is written to stdout.
 */
import { createServer, type Socket } from "node:net";
import type { ProviderServer } from "../provider/framework/server";
import { registerPluginServices, registerProviderService } from "./calls";
import { GrpcServer } from "./grpc/server";
import { serveHttp2 } from "./h2/connection";
import { handshakeLine, listen } from "./handshake";
import { processLifetime } from "./lifecycle";
import { type Logger, describeError, errorFields, stderrLogger } from "./log";

export interface WarmOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly schemaResponse?: Uint8Array;
  /** Loads the provider and what its configure needs, once the line is out. */
  readonly preload?: () => Promise<void>;
}

export async function serveWarm(factory: (log: Logger) => Promise<ProviderServer>, options: WarmOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const log = stderrLogger(env);
  const acceptor = createServer();
  // Each connection's release (run once, on close or Shutdown), kept until it has run.
  const connections = new Map<Socket, () => Promise<void>>();
  // SIGINT is ignored: Ctrl-C reaches the engine too, which cancels through StopProvider and
  // must be able to finish writing its state through us. SIGTERM comes when CMD has ended,
  // possibly before the close of its last engine connection has been seen here: every
  // connection is released (a child account's proxy token revoked) before the process goes.
  const { exit, setCleanup } = processLifetime(log, async () => {
    acceptor.close();
    await Promise.all(
      [...connections].map(([socket, release]) => {
        socket.destroy();
        return release();
      }),
    );
  });

  let listening;
  try {
    listening = await listen(acceptor, env);
  } catch (e) {
    process.stderr.write(`cannot listen for the engines: ${describeError(e)}\n`);
    return exit(1);
  }
  setCleanup(listening.cleanup);

  const onError = (path: string, e: unknown) => log("error", `${path} failed`, errorFields(e));

  const serveConnection = (socket: Socket) => {
    const server = new GrpcServer({ onError });
    const provider = registerProviderService(server, () => factory(log), { log, schemaResponse: options.schemaResponse });
    let released: Promise<void> | undefined;
    const release = () =>
      (released ??= provider
        .release()
        .catch((e: unknown) => log("warn", "releasing a provider instance failed", errorFields(e)))
        .finally(() => connections.delete(socket)));
    connections.set(socket, release);
    // A Shutdown ends this instance only: other connections are other engines' providers.
    registerPluginServices(server, { exit: () => socket.destroy(), release });
    socket.on("close", () => void release());
    serveHttp2(socket, { onStream: (stream, headers) => server.handleStream(stream, headers), log: (message, fields) => log("debug", message, fields) });
  };
  acceptor.on("connection", serveConnection);
  process.stdout.write(handshakeLine(listening));
  // While the first engine command starts, rather than in its first ConfigureProvider.
  const { preload } = options;
  if (preload) setImmediate(() => void preload().catch((e: unknown) => log("warn", "preloading the provider failed", errorFields(e))));
}
