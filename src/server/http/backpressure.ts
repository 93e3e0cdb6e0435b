/**
 * Backpressure per connection: a client that pipelines requests and never reads the answers
 * must not make the server build and keep every answer. Node parses every request of a read
 * chunk at once (a 64 KiB read holds about a thousand small GETs) and its own pause comes after
 * that chunk, so without a gate each request of the chunk is handled and its answer kept.
 *
 * Here a connection runs at most `maxUnanswered` requests whose answers are not yet written to
 * the socket (an answer counts until node has handed its last byte to the kernel), and starts no
 * request while more than `maxUnsentBytes` of answers wait in user space. Requests parsed past
 * that wait unhandled (their objects only: no answer is built) and the connection stops reading;
 * it reads again once they have all started. A connection that makes no progress for `stallMs`
 * while stopped is destroyed, and one that stuffs more than `maxWaiting` requests into what was
 * already read is closed at once: either way everything it held is released with the socket.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface BackpressureLimits {
  /** Requests of one connection being handled or whose answer is not yet written out. */
  maxUnanswered: number;
  /** Answer bytes of one connection not yet handed to the kernel, past which no request starts. */
  maxUnsentBytes: number;
  /** Requests parsed but not started, past which the connection is closed. */
  maxWaiting: number;
  /** How long a connection that stopped reading may make no progress before it is destroyed. */
  stallMs: number;
}

export const DEFAULT_BACKPRESSURE: BackpressureLimits = { maxUnanswered: 16, maxUnsentBytes: 1024 * 1024, maxWaiting: 2048, stallMs: 30_000 };

/** What a connection holds, for tests and benchmarks: the most it ever ran and held at once. */
export interface ConnectionLoad {
  unanswered: number;
  waiting: number;
  peakUnanswered: number;
  peakWaiting: number;
  /** Requests handed to the application so far. */
  started: number;
  /** Whether reading is stopped. */
  stopped: boolean;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Connection {
  socket: Socket;
  unanswered: Set<ServerResponse>;
  waiting: Array<[IncomingMessage, ServerResponse]>;
  load: ConnectionLoad;
  stall?: NodeJS.Timeout;
}

/** Bytes of answers on `c` that node holds and has not yet handed to the kernel. */
function unsentBytes(c: Connection): number {
  let bytes = c.socket.writableLength;
  // A pipelined answer not yet given the socket keeps its bytes in the response itself.
  for (const res of c.unanswered) if (res.socket !== c.socket) bytes += res.writableLength;
  return bytes;
}

/** Destroys the connection unless it makes progress within `stallMs` (each progress arms it again). */
function armStall(c: Connection, stallMs: number): void {
  clearTimeout(c.stall);
  c.stall = setTimeout(() => c.socket.destroy(), stallMs);
  c.stall.unref();
}

function stopReading(c: Connection, stallMs: number): void {
  if (!c.load.stopped) {
    c.load.stopped = true;
    armStall(c, stallMs);
  }
  // Again on every request that arrives while stopped: node resumes a socket it paused itself.
  c.socket.pause();
}

function startReading(c: Connection): void {
  if (!c.load.stopped) return;
  c.load.stopped = false;
  clearTimeout(c.stall);
  c.stall = undefined;
  c.socket.resume();
}

const canStart = (c: Connection, limits: BackpressureLimits): boolean => c.unanswered.size < limits.maxUnanswered && unsentBytes(c) <= limits.maxUnsentBytes;

function newConnection(socket: Socket): Connection {
  const load = { unanswered: 0, waiting: 0, peakUnanswered: 0, peakWaiting: 0, started: 0, stopped: false };
  return { socket, unanswered: new Set(), waiting: [], load };
}

export interface Gate {
  /** The load of the connection `socket`, while it is open. */
  load(socket: Socket): ConnectionLoad | undefined;
  /** Called after each change of a connection's load (tests observe the bound through it). */
  onChange?: (socket: Socket, load: ConnectionLoad) => void;
}

/** Wraps `handler` so that each connection's requests pass the limits above. */
export function gateRequests(handler: Handler, limits: BackpressureLimits = DEFAULT_BACKPRESSURE): { handle: Handler; gate: Gate } {
  const connections = new WeakMap<Socket, Connection>();
  const gate: Gate = { load: (socket) => connections.get(socket)?.load };

  const changed = (c: Connection) => {
    c.load.unanswered = c.unanswered.size;
    c.load.waiting = c.waiting.length;
    c.load.peakUnanswered = Math.max(c.load.peakUnanswered, c.unanswered.size);
    c.load.peakWaiting = Math.max(c.load.peakWaiting, c.waiting.length);
    gate.onChange?.(c.socket, c.load);
  };

  const start = (c: Connection, req: IncomingMessage, res: ServerResponse) => {
    c.unanswered.add(res);
    c.load.started++;
    const done = () => {
      if (!c.unanswered.delete(res)) return;
      // Progress: the client reads, or the answer is out.
      if (c.load.stopped) armStall(c, limits.stallMs);
      pump(c);
    };
    res.once("finish", done);
    res.once("close", done);
    handler(req, res);
  };

  const pump = (c: Connection) => {
    while (c.waiting.length > 0 && !c.socket.destroyed && canStart(c, limits)) {
      const [req, res] = c.waiting.shift()!;
      start(c, req, res);
    }
    if (c.waiting.length === 0) startReading(c);
    changed(c);
  };

  const connectionOf = (socket: Socket): Connection => {
    let c = connections.get(socket);
    if (c !== undefined) return c;
    const made = newConnection(socket);
    socket.on("drain", () => pump(made));
    socket.once("close", () => {
      clearTimeout(made.stall);
      made.waiting.length = 0;
      made.unanswered.clear();
      connections.delete(socket);
    });
    connections.set(socket, made);
    c = made;
    return c;
  };

  const handle: Handler = (req, res) => {
    const c = connectionOf(req.socket);
    if (c.waiting.length === 0 && canStart(c, limits)) {
      start(c, req, res);
      changed(c);
      return;
    }
    if (c.waiting.length >= limits.maxWaiting) {
      // More requests than any client waits on, in what was already read: nothing of it is answered.
      c.waiting.length = 0;
      req.socket.destroy();
      return;
    }
    c.waiting.push([req, res]);
    stopReading(c, limits.stallMs);
    changed(c);
  };

  return { handle, gate };
}

const gates = new WeakMap<Server, Gate>();

/** The gate installed on `server`, for tests and benchmarks that watch the bound. */
export function gateOf(server: Server): Gate | undefined {
  return gates.get(server);
}

/** Puts the gate in front of `server`'s request handlers (Fastify's, added when it made the server). */
export function installBackpressure(server: Server, limits: BackpressureLimits = DEFAULT_BACKPRESSURE): Gate {
  const handlers = server.listeners("request") as Handler[];
  server.removeAllListeners("request");
  const { handle, gate } = gateRequests((req, res) => {
    for (const h of handlers) h(req, res);
  }, limits);
  server.on("request", handle);
  gates.set(server, gate);
  return gate;
}
