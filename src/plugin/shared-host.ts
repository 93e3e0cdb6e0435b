/**
 * The plugin process that starts share (shared-place.ts says which): started by a start that
 * found none, it serves each later start's engine connection itself, so those starts run code that
 * is loaded, compiled and warm instead of each loading the plugin cold.
 *
 * A session is one start: the start says hello with its setting, and the host listens on a socket
 * of the session's own, with TLS pinned to that start's PLUGIN_CLIENT_CERT as a plugin's own
 * listener is (transport.ts), and answers with the handshake line the start prints. The session
 * is one provider instance, configured and released as the process of a start would be: the
 * engine's Shutdown ends it (the start then exits with the code), and so does the start's end (the
 * engine killed it): its engine connections are closed, its calls in progress answered, then what
 * configure acquired released. Nothing else is kept from one session to the next. A start whose
 * setting is not the host's is refused and serves itself.
 *
 * The host ends a while after its last session (shared-place.ts idleMs, 30 s unless
 * MGMT_PLUGIN_SHARED says otherwise), so a loop's next command finds it and a credential does not
 * stay in memory long after the commands that use it. A SIGTERM ends it too,
 * letting calls in progress finish. Its own stdio is /dev/null, in a session of its own; what it
 * logs goes to the starts' stderr.
 */
import { statSync, unlinkSync } from "node:fs";
import { type Server, type Socket, createConnection, createServer } from "node:net";
import type { ProviderServer } from "../provider/framework/server";
import { checkEnvironment, handshakeLine, listen, listenOnPath, pemCertificateDer } from "./handshake";
import { processLifetime } from "./lifecycle";
import { type Level, type Logger, describeError, errorFields, lineLogger } from "./log";
import { keptServerIdentity } from "./server-identity";
import { type HostMessage, type JoinMessage, encodeMessage, idleMs, messageReader, settingDifference } from "./shared-place";
import type { ServerIdentity } from "./tls";
import { flushMarks, mark, tracing } from "./trace";

/** The most a terminating start waits for its session's calls in progress (lifecycle.ts SETTLE_LIMIT_MS). */
const SETTLE_LIMIT_MS = 120_000;

export interface SharedHostOptions {
  readonly socketPath: string;
  readonly cacheDir?: string;
  readonly schemaResponse?: Uint8Array;
  /** Loads the provider and what its configure needs, once the host listens. */
  readonly preload?: () => Promise<void>;
}

interface Session {
  /** Ends the session as a start's death would: engine connections closed, calls answered, the instance released. */
  abandon(): Promise<void>;
  log: Logger;
}

export async function serveSharedHost(factory: (log: Logger) => Promise<ProviderServer>, options: SharedHostOptions): Promise<void> {
  const sessions = new Set<Session>();
  // What the host itself has to say goes to every start it serves: there is no other stderr.
  const log: Logger = (level: Level, message, fields) => {
    for (const session of sessions) session.log(level, message, fields);
  };
  const control = createServer();
  const { exit, setCleanup } = processLifetime(
    log,
    async () => {
      control.close();
      await Promise.all([...sessions].map((s) => s.abandon()));
    },
    { watchParent: false },
  );
  if (!(await listenControl(control, options.socketPath))) return exit(0);
  // Only our own socket: a host started after this one began to end may be listening there already.
  const own = statSync(options.socketPath).ino;
  setCleanup(() => {
    try {
      if (statSync(options.socketPath).ino === own) unlinkSync(options.socketPath);
    } catch {
      // Already gone.
    }
  });

  let idle: NodeJS.Timeout | undefined;
  const idleWatch = () => {
    clearTimeout(idle);
    if (sessions.size === 0) idle = setTimeout(() => exit(0), idleMs(process.env));
  };
  idleWatch();

  // Read for each session, as each start of a plugin reads it: a host in use for weeks still takes the renewed one.
  let made: ServerIdentity | undefined;
  const serverIdentity = (): ServerIdentity => {
    if (!options.cacheDir) return (made ??= (require("./tls") as typeof import("./tls")).createSelfSignedCertificate());
    const kept = keptServerIdentity(options.cacheDir);
    kept.settle();
    return kept.identity;
  };

  control.on("connection", (socket) => {
    const session = startSession(socket, {
      factory,
      schemaResponse: options.schemaResponse,
      serverIdentity,
      onEnd: () => sessions.delete(session) && idleWatch(),
    });
    sessions.add(session);
    idleWatch();
  });
  mark("shared host listening");
  // A start that connects meanwhile waits for its line rather than serving itself cold: the host
  // listens first, then loads what sessions need (the first hello loads it at once if sooner).
  setImmediate(() => {
    sessionModules();
    const { preload } = options;
    if (preload) void preload().catch((e: unknown) => log("warn", "preloading the provider failed", errorFields(e)));
  });
}

/** The modules a session needs, loaded after the host listens: the Provider service and protobuf code (dist/calls.js), the gRPC router, the transport. */
function sessionModules() {
  return {
    ...(require("./calls") as typeof import("./calls")),
    ...(require("./grpc/server") as typeof import("./grpc/server")),
    ...(require("./transport") as typeof import("./transport")),
  };
}

/**
 * Listens on the host's socket: true once listening, false when another host already answers
 * there. A socket file nobody answers on is a host's that died; it is replaced.
 */
async function listenControl(control: Server, path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      control.once("error", resolve);
      listenOnPath(control, path, () => {
        control.off("error", resolve);
        resolve(undefined);
      });
    });
    if (!error) return true;
    if (error.code !== "EADDRINUSE" || (await answers(path))) return false;
    removeSocket(path);
  }
  return false;
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.on("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.on("error", () => resolve(false));
  });
}

function removeSocket(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

interface SessionOptions {
  readonly factory: (log: Logger) => Promise<ProviderServer>;
  readonly schemaResponse?: Uint8Array;
  readonly serverIdentity: () => ServerIdentity;
  readonly onEnd: () => void;
}

function startSession(socket: Socket, options: SessionOptions): Session {
  const send = (message: HostMessage) => {
    if (!socket.destroyed) socket.write(encodeMessage(message));
  };
  let log: Logger = () => {};
  let pid: number | undefined;
  let serving: Promise<Serving> | undefined;
  let abandoned: Promise<void> | undefined;
  const warnIfFails = (work: Promise<void>, what: string) => work.catch((e: unknown) => log("warn", `${what} failed`, errorFields(e)));
  const abandon = () =>
    (abandoned ??= (async () => {
      socket.destroy();
      const served = await serving?.catch(() => undefined);
      if (served) {
        served.close();
        await warnIfFails(served.settle(), "finishing the calls in progress");
        await warnIfFails(served.release(), "releasing a provider instance");
      }
      if (pid !== undefined) markSessionEnd(pid);
      options.onEnd();
    })());
  /** The engine shut the session down: the start exits with `code`, which closes the socket and so abandons the rest. */
  const end = (code: number) => {
    send({ exit: code });
    socket.end();
  };

  const refuse = (why: string) => {
    send({ refused: why });
    void abandon();
  };
  const onMessage = (message: JoinMessage) => {
    if ("hello" in message) {
      // One hello per start.
      if (serving) return void abandon();
      const difference = settingDifference(message.hello, { env: process.env, cwd: process.cwd() });
      const check = checkEnvironment(message.hello.env);
      if (difference) return refuse(`this start's ${difference} is not the shared process's`);
      if (!check.ok) return refuse(check.message);
      pid = message.hello.pid;
      log = lineLogger(process.env, (line) => send({ log: line }));
      serving = serveStart(check.clientCertPem, { ...options, log, end });
      serving.then(
        (served) => {
          if (abandoned) return;
          send({ line: served.line });
          mark("shared session", { start: pid });
        },
        (e: unknown) => refuse(describeError(e)),
      );
    } else if ("terminate" in message && serving) {
      void serving.then((served) => {
        const settled = warnIfFails(served.settle(), "finishing the calls in progress");
        return Promise.race([settled, new Promise((r) => setTimeout(r, SETTLE_LIMIT_MS).unref())]).then(() => end(0));
      });
    }
  };
  socket.on(
    "data",
    messageReader<JoinMessage>(onMessage, () => void abandon()),
  );
  socket.on("close", () => void abandon());
  socket.on("error", () => {});
  return { abandon, log: (level, message, fields) => log(level, message, fields) };
}

/** A start's provider instance and the socket its engine dials. */
interface Serving {
  /** The handshake line for the start to print. */
  readonly line: string;
  settle(): Promise<void>;
  release(): Promise<void>;
  /** Stops listening and closes the engine's connections. */
  close(): void;
}

/** Serves one start's engine as the start itself would (serve.ts): TLS pinned to its certificate when it has one. */
async function serveStart(clientCertPem: string | undefined, options: SessionOptions & { log: Logger; end: (code: number) => void }): Promise<Serving> {
  const { log, end } = options;
  const { GrpcServer, registerProviderService, registerPluginServices, createTransport } = sessionModules();
  const tls = clientCertPem ? { serverCert: options.serverIdentity(), clientCertDer: pemCertificateDer(clientCertPem) } : undefined;
  const server = new GrpcServer({ onError: (path, e) => log("error", `${path} failed`, errorFields(e)) });
  const provider = registerProviderService(server, () => options.factory(log), { log, schemaResponse: options.schemaResponse });
  let released: Promise<void> | undefined;
  const release = () => (released ??= provider.release());
  registerPluginServices(server, { exit: end, release });

  const acceptor = createServer();
  let listening;
  try {
    listening = await listen(acceptor, process.env);
  } catch (e) {
    await release();
    throw e;
  }
  const connections = new Set<Socket>();
  const transport = createTransport({
    tls,
    log,
    onStream: (stream, headers) => server.handleStream(stream, headers),
    onFailure: (e) => {
      log("error", "the shared plugin process could not serve this start", errorFields(e));
      end(1);
    },
  });
  acceptor.on("connection", (connection) => {
    connections.add(connection);
    connection.on("close", () => connections.delete(connection));
    transport.accept(connection);
  });
  const cleanup = listening.cleanup;
  return {
    line: handshakeLine(listening, tls?.serverCert.certDer),
    settle: provider.settle,
    release,
    close: () => {
      acceptor.close();
      cleanup();
      for (const connection of connections) connection.destroy();
    },
  };
}

/** The host's CPU time, in ms, up to the last session's end. */
let cpuMarked = 0;

/**
 * A traced host's marks are written as each session ends, with the host's CPU time since the
 * session before: it outlives the engine command a bench reads them after (bench/stack.ts credits
 * each session's calls and CPU to its start).
 */
function markSessionEnd(pid: number): void {
  if (!tracing()) return;
  const usage = process.resourceUsage();
  const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  mark("session end", { start: pid, cpuMs: cpuMs - cpuMarked });
  cpuMarked = cpuMs;
  flushMarks();
}
