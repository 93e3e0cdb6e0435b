/**
 * The plugin process from start to exit: check we were started by an engine, listen, print
 * the handshake line, then set up TLS while the engine reads the line and dials, and the gRPC
 * services while the TLS handshake waits for the engine's half (transport.ts); the provider
 * itself is loaded by the first call that needs it. The engine starts
 * the plugin several times per command and waits for that line each time, so only what the
 * line needs comes before it: the server certificate and a listening socket. Connections that
 * arrive meanwhile wait in the socket's backlog until the transport takes them.
 */
import { createServer } from "node:net";
import type { ProviderServer } from "../provider/framework/server";
import { checkEnvironment, handshakeLine, listen, pemCertificateDer, writeLine } from "./handshake";
import { processLifetime } from "./lifecycle";
import { mark, traceStartAndExit } from "./trace";
import { type Logger, describeError, errorFields, stderrLogger } from "./log";
import type { Router, ServicesOptions } from "./services";
import { keptServerIdentity } from "./server-identity";
import type { ServerIdentity } from "./tls";

export interface ServeOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** The encoded GetProviderSchema answer, precomputed by the build; without it the provider is loaded to compute it. */
  readonly schemaResponse?: Uint8Array;
  /**
   * The user's private cache folder (compile-cache.ts cacheFolder): the server certificate and
   * key are kept there between starts (server-identity.ts). Without it each start makes its own.
   */
  readonly cacheDir?: string;
}

/** Resolves once the handshake line is out; the process then lives until Shutdown. */
export async function servePlugin(factory: (log: Logger) => Promise<ProviderServer>, options: ServeOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  traceStartAndExit();
  const check = checkEnvironment(env);
  if (!check.ok) return fatal(check.message);

  const writeHandshake = takeStdout();
  const log = stderrLogger(env);

  const { exit, setCleanup } = processLifetime(log);

  // node:crypto is not loaded for the line (node:tls loads it right after): the engine's
  // certificate is pinned by its bytes, and a kept server identity is read without it
  // (server-identity.ts). A start that looked for a shared host has loaded it for the host's name
  // (shared-place.ts; 0.35 ms from node's snapshot, measured 2026-12-03).
  let tls: { serverCert: ServerIdentity; clientCertDer: Buffer } | undefined;
  let settleIdentity = () => {};
  let discardIdentity = () => {};
  if (check.clientCertPem) {
    let clientCertDer: Buffer;
    try {
      clientCertDer = pemCertificateDer(check.clientCertPem);
    } catch (e) {
      return fatal(`PLUGIN_CLIENT_CERT does not hold a PEM certificate: ${describeError(e)}`);
    }
    if (options.cacheDir) {
      const kept = keptServerIdentity(options.cacheDir);
      mark("server identity", { source: kept.source });
      tls = { serverCert: kept.identity, clientCertDer };
      settleIdentity = kept.settle;
      discardIdentity = kept.discard;
    } else {
      const { createSelfSignedCertificate } = require("./tls") as typeof import("./tls");
      tls = { serverCert: createSelfSignedCertificate(), clientCertDer };
    }
  }
  // Without PLUGIN_CLIENT_CERT (TF_DISABLE_PLUGIN_TLS, reattach-style clients) we serve plaintext h2.

  const acceptor = createServer();
  let listening;
  try {
    listening = await listen(acceptor, env);
  } catch (e) {
    return fatal(`cannot listen for the engine: ${describeError(e)}`);
  }
  setCleanup(listening.cleanup);
  writeHandshake(handshakeLine(listening, tls?.serverCert.certDer));
  mark("line");

  const cannotServe = (e: unknown) => {
    log("error", "the plugin could not start serving", errorFields(e));
    exit(1);
  };
  // Synchronous from here to the end, so the transport is in place before the first
  // 'connection' event can fire.
  try {
    startServing(acceptor, { tls, factory, log, exit, schemaResponse: options.schemaResponse, cannotServe });
  } catch (e) {
    // node:tls checks the server's key against its certificate as it makes the context: a kept
    // identity it refuses is dropped, so the next start makes a new one.
    discardIdentity();
    cannotServe(e);
  }
  // A start that made its identity keeps it for the next ones; nothing waits for the file.
  settleIdentity();
}

function startServing(
  acceptor: ReturnType<typeof createServer>,
  options: ServicesOptions & {
    tls: { serverCert: ServerIdentity; clientCertDer: Buffer } | undefined;
    cannotServe: (e: unknown) => void;
  },
): void {
  const { createTransport } = require("./transport") as typeof import("./transport");
  // The router is loaded while the engine dials and the TLS handshake waits for it
  // (transport.ts); no stream can arrive before it is there.
  let router: Router | undefined;
  const transport = createTransport({
    tls: options.tls,
    log: options.log,
    prepare: () => {
      router = (require("./services") as typeof import("./services")).startServices(options);
    },
    onFailure: options.cannotServe,
    onStream: (stream, headers) => router!.handleStream(stream, headers),
  });
  acceptor.on("connection", (socket) => transport.accept(socket));
}

function fatal(message: string): never {
  process.stderr.write(message + "\n");
  process.exit(1);
}

/**
 * The engine reads our first stdout line as the handshake; anything printed before it
 * breaks the start, and anything after is discarded. So stdout is reserved for that line and
 * every other write (console.log in provider code included) is sent to stderr.
 *
 * The line is written to file descriptor 1 directly, and process.stdout is redirected when it is
 * first used rather than made here: node makes it on first use, and for a pipe (as the engines
 * give us) that is a socket, a millisecond or more on every start that only stray writes need.
 */
function takeStdout(): (line: string) => void {
  const redirect = (stdout: NodeJS.WriteStream) => {
    stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  };
  const made = Object.getOwnPropertyDescriptor(process, "stdout");
  const getter = made?.get;
  if (getter && made.configurable) {
    let redirected = false;
    Object.defineProperty(process, "stdout", {
      configurable: true,
      enumerable: made.enumerable,
      get: () => {
        const stdout = getter.call(process) as NodeJS.WriteStream;
        if (!redirected) redirect(stdout);
        redirected = true;
        return stdout;
      },
    });
  } else {
    redirect(process.stdout);
  }
  return writeLine;
}
