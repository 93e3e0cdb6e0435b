/**
 * A start that joins a host (shared-host.ts) instead of loading the plugin: it says
 * hello on the host's socket, prints the handshake line the host answers with (the engine then
 * dials the host), and lives on as the process the engine watches until the host says the session
 * is over. What the host logs for the session comes back here and goes to our stderr, where the
 * engine reads a plugin's log.
 *
 * A start that finds no host starts one for the next starts and serves its engine itself, as
 * every start did before: nothing waits for a host to boot. So does a start the host refuses
 * (another environment), or one that cannot reach it: `joinHost` then resolves false before
 * anything is on stdout.
 *
 * Runs in dist/plugin.js before the code cache is read: node:net, node:fs and, for the host's name,
 * node:crypto (shared-place.ts); node:child_process only to start a host.
 */
import { type Socket, createConnection } from "node:net";
import { writeLine } from "./handshake";
import { whenParentGone } from "./lifecycle";
import { type HostMessage, encodeMessage, messageReader } from "./shared-place";
import { mark } from "./trace";

/** How long a start waits for the host's answer before it serves the engine itself. */
const ANSWER_LIMIT_MS = 5_000;

export interface JoinOptions {
  readonly socketPath: string;
  /** dist/plugin.js, which a host is started from. */
  readonly entry: string;
  readonly env: NodeJS.ProcessEnv;
}

/** Resolves true once the handshake line is out and this process serves as the session's stand-in; false to serve the engine here. */
export function joinHost(options: JoinOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(options.socketPath);
    let state: "waiting" | "joined" | "declined" = "waiting";
    const decline = (why: string, startHost = false) => {
      if (state !== "waiting") return;
      state = "declined";
      mark("not joined", { why });
      clearTimeout(limit);
      socket.destroy();
      if (startHost) startHostFor(options);
      resolve(false);
    };
    const limit = setTimeout(() => decline("no answer in time"), ANSWER_LIMIT_MS);
    socket.on("error", (e: NodeJS.ErrnoException) => decline(e.code ?? e.message, e.code === "ENOENT" || e.code === "ECONNREFUSED"));
    socket.on("connect", () => socket.write(encodeMessage({ hello: { env: options.env, cwd: process.cwd(), pid: process.pid } })));
    const read = messageReader<HostMessage>(
      (message) => {
        if (state === "joined") return standIn(socket, message);
        if (state === "declined") return;
        if (!("line" in message)) return decline("refused" in message ? `refused: ${message.refused}` : "an unexpected answer");
        state = "joined";
        clearTimeout(limit);
        writeLine(message.line);
        installGuards(socket);
        resolve(true);
      },
      () => (state === "joined" ? lost(socket, "the shared plugin process sent a line that is not a message") : decline("an answer that is not a message")),
    );
    socket.on("data", read);
    socket.on("close", () => (state === "joined" ? lost(socket, "the shared plugin process is gone") : decline("closed before answering")));
  });
}

/** What the host sends once the session runs: its log lines, then the exit code. */
function standIn(socket: Socket, message: HostMessage): void {
  if ("log" in message) {
    try {
      process.stderr.write(message.log);
    } catch {
      // The engine is gone; nothing useful to do with a log line.
    }
  } else if ("exit" in message) {
    socket.destroy();
    process.exit(message.exit);
  }
}

function lost(socket: Socket, why: string): void {
  socket.destroy();
  process.stderr.write(`${why}; the engine sees this plugin end\n`);
  process.exit(1);
}

/**
 * The signals as a plugin takes them (lifecycle.ts): SIGINT is the engine's to handle through
 * StopProvider, and it reaches the host that way; SIGTERM and SIGHUP are passed on, and the host
 * ends the session once the calls in progress are answered, then says exit. An engine that goes
 * without shutting us down ends us, and closing the socket ends the session at the host.
 */
function installGuards(socket: Socket): void {
  process.on("SIGINT", () => {});
  const terminate = () => socket.write(encodeMessage({ terminate: true }));
  process.on("SIGTERM", terminate);
  process.on("SIGHUP", terminate);
  whenParentGone(() => {
    socket.destroy();
    process.exit(0);
  });
}

/**
 * A host for the next starts, in a session of its own so the terminal's Ctrl-C and a CI job's
 * signals to the engine's group reach the engine and the starts, not it; with nothing of ours
 * open in it (an inherited stderr would keep the engine waiting for its end).
 */
function startHostFor(options: JoinOptions): void {
  const env = { ...options.env };
  delete env.PLUGIN_CLIENT_CERT;
  try {
    // Loaded here, not at the top: only a start that finds no host pays for node:child_process.
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    spawn(process.execPath, [options.entry, "--shared-host", options.socketPath], {
      detached: true,
      stdio: "ignore",
      env,
    }).unref();
  } catch {
    // This start serves its engine either way.
  }
}
