/** Raw HTTP/1.1 over a socket, for the tests of what happens below the routes. */
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The body's bytes as text (empty when none was sent). */
  body: string;
}

export interface Exchange {
  responses: RawResponse[];
  /** Bytes after the last whole response (none when the server keeps to its framing). */
  rest: string;
  /** The socket error the client saw (such as ECONNRESET), if any. */
  error?: string;
}

/**
 * Writes `chunks` on one connection (each a separate write), reads until the server closes,
 * and splits what came back into responses. `head` tells which responses answer a HEAD (no body).
 */
export function exchange(port: number, chunks: ReadonlyArray<string | Buffer>, head: (index: number) => boolean = () => false): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const data: Buffer[] = [];
    let error: string | undefined;
    socket.on("data", (d: Buffer) => data.push(d));
    socket.on("error", (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on("close", () => resolve({ ...splitResponses(Buffer.concat(data), head), ...(error === undefined ? {} : { error }) }));
    socket.on("connect", () => {
      for (const c of chunks) socket.write(c);
    });
  });
}

export function splitResponses(bytes: Buffer, head: (index: number) => boolean = () => false): { responses: RawResponse[]; rest: string } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const lines = bytes.toString("latin1", at, end).split("\r\n");
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(lines[0] ?? "")?.[1] ?? NaN);
    if (Number.isNaN(status)) break;
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = head(responses.length) ? 0 : Number(headers["content-length"] ?? 0);
    if (end + 4 + length > bytes.length) break;
    responses.push({ status, headers, body: bytes.toString("utf8", end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return { responses, rest: bytes.toString("latin1", at) };
}

/** A request's bytes: JSON body with its length, the connection kept open. */
export function rawRequest(method: string, path: string, token: string | null, json?: unknown, extra = ""): string {
  const body = json === undefined ? "" : JSON.stringify(json);
  const framing = json === undefined ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n${framing}${extra}\r\n${body}`;
}
