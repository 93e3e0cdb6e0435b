/**
 * What happens below the routes, on the connection itself, so that every answer is JSON, comes
 * in order and reaches the client:
 *
 * - A request node's parser refuses (bad bytes, headers too large, not received in time) is
 *   answered only once every request parsed before it on the same connection has had its own
 *   answer: a client never reads an error in place of the answer to a write that was carried
 *   out. The refused request itself never runs.
 * - `CONNECT` (which node hands over as a raw socket, or drops) is answered 405 the same way.
 * - A connection closed while the client may still be sending (a refused or oversized body) is
 *   closed by a FIN after the answer, and what still arrives is read and dropped for a moment:
 *   closing with unread bytes would send a reset, which can discard the answer on the client.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** How long a closing connection keeps reading and dropping what the client still sends. */
export const LINGER_MS = 2_000;

type Connection = Socket & { _httpMessage?: ServerResponse | null };

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "Request headers are too large"],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, "Payload Too Large", "Request chunk extensions are too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "The request was not received in time"],
};

/** An answer written straight to the socket: JSON, closing the connection; `head`: without the body. */
export function rawAnswer(status: number, text: string, reason: string, head = false, extra = ""): string {
  const body = JSON.stringify({ errors: [{ reason }] });
  const top = `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n`;
  return head ? top : top + body;
}

/**
 * Closes `socket` gracefully: FIN once what is written is flushed, then what the client still
 * sends is read and dropped until it closes too, or `LINGER_MS` passes.
 */
export function lingeringClose(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}

/**
 * Runs `then` once no answer is due before the refused request's: every response on `socket`
 * whose request arrived whole (or whose answer is already complete) is written out first. A
 * response whose request was cut by the refusal is not waited for: the refusal answers it.
 */
export function afterPendingAnswers(socket: Socket, then: () => void): void {
  if (socket.destroyed) return;
  const res = (socket as Connection)._httpMessage;
  if (res === null || res === undefined || !(res.writableEnded || res.req.complete)) {
    then();
    return;
  }
  // Finished but still attached: its 'finish' (after which node hands the socket on) is yet to come.
  if (res.writableFinished) {
    setImmediate(() => afterPendingAnswers(socket, then));
    return;
  }
  const next = () => {
    socket.off("close", gone);
    // Node's own 'finish' listener (added first) has already handed the socket to the next response.
    afterPendingAnswers(socket, then);
  };
  const gone = () => res.off("finish", next);
  res.once("finish", next);
  socket.once("close", gone);
}

/** The method of the last request line in the bytes the parser failed on, if it is there. */
function failedMethod(err: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: number }): string | undefined {
  const raw = err.rawPacket;
  if (!Buffer.isBuffer(raw)) return undefined;
  const end = typeof err.bytesParsed === "number" ? Math.min(err.bytesParsed + 1, raw.length) : raw.length;
  let method: string | undefined;
  for (const m of raw.toString("latin1", 0, end).matchAll(/(?:^|\n)([A-Z]+) \S+ HTTP\/\d/g)) method = m[1];
  return method;
}

const refused = new WeakSet<Socket>();

/** Ends `socket` with `answer` once the answers due before it are out; later calls are ignored. */
function answerLast(socket: Socket, answer: () => string): void {
  if (refused.has(socket)) return;
  refused.add(socket);
  afterPendingAnswers(socket, () => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.write(answer());
    lingeringClose(socket);
  });
}

/**
 * Node's 'clientError': a protocol-level error (unparseable request line, headers or chunk
 * framing, or a request not received in time), answered as JSON after the answers due before
 * it, then closed. The parser keeps reporting its error for each later read: only the first counts.
 */
export function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || err.code === "EPIPE") {
    socket.destroy();
    return;
  }
  const [status, text, reason] = CLIENT_ERRORS[err.code ?? ""] ?? [400, "Bad Request", "Bad request"];
  const head = failedMethod(err) === "HEAD";
  answerLast(socket, () => rawAnswer(status, text, reason, head));
}

/** Node's 'connect' (a `CONNECT` request): this is no proxy; 405 in turn, then closed. */
export function onConnect(_req: IncomingMessage, socket: Socket): void {
  // Node has stopped parsing this socket; what follows is read and dropped.
  socket.on("data", () => undefined);
  socket.on("error", () => socket.destroy());
  answerLast(socket, () => rawAnswer(405, "Method Not Allowed", "Method not allowed", false, "Allow: GET, HEAD, POST, PUT, DELETE\r\n"));
}

/** Installs the handlers above on `server` (the clientError one is given to Fastify, which installs it). */
export function installConnectionHandlers(server: Server): void {
  server.on("connect", onConnect);
}
