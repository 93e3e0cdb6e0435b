/** @tier unit */
/**
 * The plugin's HTTP/2 server against an independent implementation (node's client, nghttp2) for
 * what a client does, and against hand-made frames for what a broken or hostile one does.
 */
import * as http2 from "node:http2";
import * as net from "node:net";
import { type ServerStream, serveHttp2 } from "../../src/plugin/h2/connection";
import {
  CLIENT_PREFACE,
  ErrorCode,
  Flag,
  FrameType,
  type FrameHeader,
  frame,
  readFrameHeader,
  settingsFrame,
  windowUpdateFrame,
} from "../../src/plugin/h2/frames";
import type { IncomingHeaders } from "../../src/plugin/h2/headers";
import { HpackEncoder } from "../../src/plugin/h2/hpack";

type Handler = (stream: ServerStream, headers: IncomingHeaders) => void;

/** Answers with the request body and headers: `x-request` holds the request headers as JSON. */
const echo: Handler = (stream, headers) => {
  const chunks: Buffer[] = [];
  stream.on("data", (d: Buffer) => chunks.push(d));
  stream.on("end", () => {
    stream.respond({ ":status": 200, "x-request": JSON.stringify(headers) });
    stream.write(Buffer.concat(chunks));
    stream.end({ "x-trailer": "done" });
  });
};

let server: net.Server;
let port: number;
let handler: Handler = echo;
const sockets = new Set<net.Socket>();
const logged: string[] = [];

beforeAll(async () => {
  server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serveHttp2(socket, { onStream: (s, h) => handler(s, h), log: (message) => logged.push(message) });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterEach(() => {
  handler = echo;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

// --- with node's client -------------------------------------------------------------------------

function connect(settings?: http2.Settings): http2.ClientHttp2Session {
  const session = http2.connect(`http://127.0.0.1:${port}`, { settings });
  session.on("error", () => {});
  return session;
}

interface Answer {
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  trailers: http2.IncomingHttpHeaders;
}

function request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body: Buffer = Buffer.alloc(0)): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ":method": "POST", ":path": "/echo", ...headers });
    const chunks: Buffer[] = [];
    let responseHeaders: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    req.on("response", (h) => (responseHeaders = h));
    req.on("trailers", (t) => (trailers = t));
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => resolve({ headers: responseHeaders, body: Buffer.concat(chunks), trailers }));
    req.on("error", reject);
    req.end(body);
  });
}

async function withSession<T>(fn: (session: http2.ClientHttp2Session) => Promise<T>, settings?: http2.Settings): Promise<T> {
  const session = connect(settings);
  try {
    return await fn(session);
  } finally {
    session.close();
  }
}

describe("with node's HTTP/2 client", () => {
  test("a request and its response, with response headers, data and trailers", async () => {
    const answer = await withSession((s) => request(s, { "x-custom": "value" }, Buffer.from("hello")));
    expect(answer.headers[":status"]).toBe(200);
    expect(JSON.parse(String(answer.headers["x-request"]))).toMatchObject({ ":method": "POST", ":path": "/echo", ":scheme": "http", "x-custom": "value" });
    expect(answer.body.toString()).toBe("hello");
    expect(answer.trailers["x-trailer"]).toBe("done");
  });

  test("headers that nghttp2 Huffman-codes and indexes come out exactly, request after request", async () => {
    await withSession(async (session) => {
      for (let i = 0; i < 30; i++) {
        const headers = {
          "user-agent": "grpc-go/1.67.1",
          "x-repeated": "the same value on every request",
          "x-varies": `value ${i} ${"é".repeat(i % 4)} ${"z".repeat(i)}`,
          [`x-name-${i % 5}`]: String(i * 7919),
        };
        const answer = await request(session, headers);
        expect(JSON.parse(String(answer.headers["x-request"]))).toMatchObject(headers);
      }
    });
  });

  test("20 MiB each way: windows are returned as data arrives and respected when sending", async () => {
    const body = Buffer.alloc(20 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4) body.writeUInt32BE(i, i);
    const answer = await withSession((s) => request(s, {}, body));
    expect(answer.body.equals(body)).toBe(true);
  });

  test("a client with a 1,000-byte stream window and 32 KiB frames gets every byte", async () => {
    const body = Buffer.alloc(300_000, 7);
    const answer = await withSession((s) => request(s, {}, body), { initialWindowSize: 1000, maxFrameSize: 32_768 });
    expect(answer.body.equals(body)).toBe(true);
  });

  test("200 concurrent streams on one connection are each answered with their own body", async () => {
    await withSession(async (session) => {
      const bodies = Array.from({ length: 200 }, (_, i) => Buffer.alloc(1000 + i * 37, i));
      const answers = await Promise.all(bodies.map((b) => request(session, {}, b)));
      answers.forEach((a, i) => expect(a.body.equals(bodies[i])).toBe(true));
    });
  });

  test("a streamed response that waits for 'drain' reaches a slow reader whole and in order", async () => {
    handler = (stream) => {
      stream.on("end", async () => {
        stream.respond({ ":status": 200 });
        let waits = 0;
        for (let i = 0; i < 80; i++) {
          if (!stream.write(Buffer.alloc(64 * 1024, i))) {
            waits++;
            await new Promise((resolve) => stream.once("drain", resolve));
          }
        }
        stream.end({ "x-waits": String(waits) });
      });
    };
    await withSession(async (session) => {
      const req = session.request({ ":method": "POST", ":path": "/stream" });
      req.end();
      const chunks: Buffer[] = [];
      let trailers: http2.IncomingHttpHeaders = {};
      req.on("trailers", (t) => (trailers = t));
      req.on("data", (d: Buffer) => {
        chunks.push(d);
        req.pause();
        setTimeout(() => req.resume(), 1);
      });
      await new Promise((resolve) => req.on("end", resolve));
      const all = Buffer.concat(chunks);
      expect(all.length).toBe(80 * 64 * 1024);
      for (let i = 0; i < 80; i++) expect(all[i * 64 * 1024]).toBe(i);
      expect(Number(trailers["x-waits"])).toBeGreaterThan(0);
    });
  });

  test("a stream the client cancels is closed on the server", async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    handler = (stream) => stream.on("close", closed);
    await withSession(async (session) => {
      const req = session.request({ ":method": "POST", ":path": "/hang" });
      req.write("part of a request");
      req.on("error", () => {});
      await new Promise((resolve) => setTimeout(resolve, 20));
      req.close(http2.constants.NGHTTP2_CANCEL);
      await serverSawClose;
    });
  });

  test("a response sent before the request is complete ends the stream; the connection goes on", async () => {
    handler = (stream, headers) => {
      if (headers[":path"] === "/early") stream.respond({ ":status": 403 }, { endStream: true });
      else echo(stream, headers);
    };
    await withSession(async (session) => {
      const req = session.request({ ":method": "POST", ":path": "/early" });
      req.write(Buffer.alloc(100_000));
      const status = await new Promise((resolve) => req.on("response", (h) => resolve(h[":status"])));
      expect(status).toBe(403);
      expect((await request(session, {}, Buffer.from("after"))).body.toString()).toBe("after");
    });
  });

  test("PING is answered with the same payload", async () => {
    await withSession(async (session) => {
      const payload = Buffer.from("8 bytes!");
      await new Promise((resolve) => (session.socket && !session.connecting ? resolve(undefined) : session.once("connect", resolve)));
      const echoed = await new Promise<Buffer>((resolve, reject) => session.ping(payload, (err, _ms, p) => (err ? reject(err) : resolve(p))));
      expect(echoed.equals(payload)).toBe(true);
    });
  });

  test("when the connection drops, open streams are closed", async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    handler = (stream) => stream.on("close", closed);
    const session = connect();
    session.request({ ":method": "POST", ":path": "/hang" }).on("error", () => {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    session.destroy();
    await serverSawClose;
  });
});

// --- with hand-made frames ------------------------------------------------------------------------

interface Frame extends FrameHeader {
  readonly payload: Buffer;
}

/** A raw client: sends bytes, collects the server's frames, and sees the socket close. */
class RawClient {
  readonly frames: Frame[] = [];
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;
  readonly encoder = new HpackEncoder();

  private constructor(readonly socket: net.Socket) {
    socket.on("data", (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      while (this.buffer.length >= 9) {
        const h = readFrameHeader(this.buffer, 0);
        if (this.buffer.length < 9 + h.length) break;
        this.frames.push({ ...h, payload: this.buffer.subarray(9, 9 + h.length) });
        this.buffer = this.buffer.subarray(9 + h.length);
      }
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  static async connect(preface = true): Promise<RawClient> {
    const socket = net.connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const client = new RawClient(socket);
    if (preface) client.send(CLIENT_PREFACE, ...settingsFrame([]));
    return client;
  }

  send(...bytes: Buffer[]): void {
    this.socket.write(Buffer.concat(bytes));
  }

  headers(streamId: number, fields: [string, string][], flags = Flag.END_HEADERS | Flag.END_STREAM): void {
    this.send(...frame(FrameType.HEADERS, flags, streamId, this.encoder.encode(fields)));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves with the first frame (from the start) that matches. */
  async expectFrame(match: (f: Frame) => boolean): Promise<Frame> {
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (this.closed) throw new Error(`connection closed; frames: ${JSON.stringify(this.frames.map((f) => [f.type, f.streamId, f.flags]))}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** The GOAWAY's error code, once the server has also closed the connection. */
  async goaway(): Promise<number> {
    const goaway = await this.expectFrame((f) => f.type === FrameType.GOAWAY);
    while (!this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return goaway.payload.readUInt32BE(4);
  }

  async reset(streamId: number): Promise<number> {
    return (await this.expectFrame((f) => f.type === FrameType.RST_STREAM && f.streamId === streamId)).payload.readUInt32BE(0);
  }

  close(): void {
    this.socket.destroy();
  }
}

const REQUEST: [string, string][] = [
  [":method", "POST"],
  [":scheme", "http"],
  [":path", "/echo"],
];

async function withRawClient<T>(fn: (client: RawClient) => Promise<T>, preface = true): Promise<T> {
  const client = await RawClient.connect(preface);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

describe("with hand-made frames", () => {
  test("the server's preface is SETTINGS with its limits, then a connection WINDOW_UPDATE", async () => {
    await withRawClient(async (client) => {
      const settings = await client.expectFrame((f) => f.type === FrameType.SETTINGS && !(f.flags & Flag.ACK));
      expect(client.frames[0]).toBe(settings);
      const values = new Map<number, number>();
      for (let i = 0; i < settings.payload.length; i += 6) values.set(settings.payload.readUInt16BE(i), settings.payload.readUInt32BE(i + 2));
      expect(values.get(0x3)).toBe(1000);
      expect(values.get(0x4)).toBe(1024 * 1024);
      const update = await client.expectFrame((f) => f.type === FrameType.WINDOW_UPDATE);
      expect(update.streamId).toBe(0);
      expect(update.payload.readUInt32BE(0)).toBe(16 * 1024 * 1024 - 65_535);
      await client.expectFrame((f) => f.type === FrameType.SETTINGS && (f.flags & Flag.ACK) !== 0);
    });
  });

  test("a request in raw frames is answered", async () => {
    await withRawClient(async (client) => {
      client.headers(1, REQUEST);
      const headers = await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 1);
      expect(headers.flags & Flag.END_STREAM).toBe(0);
      const trailers = await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 1 && f !== headers);
      expect(trailers.flags & Flag.END_STREAM).toBe(Flag.END_STREAM);
    });
  });

  test("a header block split over CONTINUATION frames, with padding and priority on the HEADERS", async () => {
    await withRawClient(async (client) => {
      const block = client.encoder.encode([...REQUEST, ["x-long", "v".repeat(3000)]]);
      const first = block.subarray(0, 100);
      const padded = Buffer.concat([Buffer.from([4]), Buffer.alloc(5), first, Buffer.alloc(4)]);
      client.send(
        ...frame(FrameType.HEADERS, Flag.PADDED | Flag.PRIORITY | Flag.END_STREAM, 1, padded),
        ...frame(FrameType.CONTINUATION, 0, 1, block.subarray(100, 1000)),
        ...frame(FrameType.CONTINUATION, Flag.END_HEADERS, 1, block.subarray(1000)),
      );
      const headers = await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 1);
      expect(headers.payload.length).toBeGreaterThan(3000); // x-request carries x-long back
    });
  });

  test.each([
    ["a wrong client preface", () => [Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n")], ErrorCode.PROTOCOL_ERROR, false],
    ["a preface not followed by SETTINGS", () => [CLIENT_PREFACE, ...frame(FrameType.PING, 0, 0, Buffer.alloc(8))], ErrorCode.PROTOCOL_ERROR, false],
    ["a frame over 16,384 bytes", () => frame(FrameType.DATA, 0, 1, Buffer.alloc(16_385)), ErrorCode.FRAME_SIZE_ERROR, true],
    ["DATA on an idle stream", () => frame(FrameType.DATA, 0, 5, Buffer.from("x")), ErrorCode.PROTOCOL_ERROR, true],
    ["DATA on stream 0", () => frame(FrameType.DATA, 0, 0, Buffer.from("x")), ErrorCode.PROTOCOL_ERROR, true],
    [
      "a client stream with an even id",
      () => frame(FrameType.HEADERS, Flag.END_HEADERS, 2, new HpackEncoder().encode(REQUEST)),
      ErrorCode.PROTOCOL_ERROR,
      true,
    ],
    [
      "a header block interrupted by another frame",
      () => [...frame(FrameType.HEADERS, 0, 1, new HpackEncoder().encode(REQUEST)), ...frame(FrameType.PING, 0, 0, Buffer.alloc(8))],
      ErrorCode.PROTOCOL_ERROR,
      true,
    ],
    ["CONTINUATION with nothing to continue", () => frame(FrameType.CONTINUATION, Flag.END_HEADERS, 1, Buffer.from([0x82])), ErrorCode.PROTOCOL_ERROR, true],
    ["an undecodable header block", () => frame(FrameType.HEADERS, Flag.END_HEADERS, 1, Buffer.from([0x80])), ErrorCode.COMPRESSION_ERROR, true],
    ["SETTINGS of 5 bytes", () => frame(FrameType.SETTINGS, 0, 0, Buffer.alloc(5)), ErrorCode.FRAME_SIZE_ERROR, true],
    ["SETTINGS_MAX_FRAME_SIZE below 16,384", () => settingsFrame([[0x5, 1000]]), ErrorCode.PROTOCOL_ERROR, true],
    ["SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1", () => settingsFrame([[0x4, 2 ** 31]]), ErrorCode.FLOW_CONTROL_ERROR, true],
    ["a connection window pushed over 2^31-1", () => windowUpdateFrame(0, 2 ** 31 - 1), ErrorCode.FLOW_CONTROL_ERROR, true],
    ["a WINDOW_UPDATE of 0 on the connection", () => windowUpdateFrame(0, 0), ErrorCode.PROTOCOL_ERROR, true],
    ["PING of 7 bytes", () => frame(FrameType.PING, 0, 0, Buffer.alloc(7)), ErrorCode.FRAME_SIZE_ERROR, true],
    ["PUSH_PROMISE from a client", () => frame(FrameType.PUSH_PROMISE, Flag.END_HEADERS, 1, Buffer.alloc(4)), ErrorCode.PROTOCOL_ERROR, true],
  ] as const)("%s: GOAWAY and the connection closes", async (_name, bytes, code, afterPreface) => {
    const goaway = await withRawClient(async (client) => {
      client.send(...bytes());
      return client.goaway();
    }, afterPreface);
    expect(goaway).toBe(code);
  });

  test("HEADERS reusing a finished stream's id is a connection error", async () => {
    await withRawClient(async (client) => {
      client.headers(3, REQUEST);
      await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 3 && (f.flags & Flag.END_STREAM) !== 0);
      client.headers(1, REQUEST);
      expect(await client.goaway()).toBe(ErrorCode.STREAM_CLOSED);
    });
  });

  test.each([
    ["an upper-case header name", [...REQUEST, ["X-Upper", "v"]]],
    [
      "a pseudo-header after a regular one",
      [
        [":method", "POST"],
        ["x", "y"],
        [":scheme", "http"],
        [":path", "/"],
      ],
    ],
    [
      "a missing :path",
      [
        [":method", "POST"],
        [":scheme", "http"],
      ],
    ],
    ["a connection-specific header", [...REQUEST, ["connection", "keep-alive"]]],
    ["te other than trailers", [...REQUEST, ["te", "gzip"]]],
    ["an unknown pseudo-header", [...REQUEST, [":protocol", "x"]]],
  ] as [string, [string, string][]][])("%s: the stream is reset, the connection serves the next one", async (_name, fields) => {
    await withRawClient(async (client) => {
      client.headers(1, fields);
      expect(await client.reset(1)).toBe(ErrorCode.PROTOCOL_ERROR);
      client.headers(3, REQUEST);
      await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 3);
    });
  });

  test("a response that ends before its request tells the client to stop sending: RST_STREAM(NO_ERROR) after it", async () => {
    handler = (stream) => stream.respond({ ":status": 403 }, { endStream: true });
    await withRawClient(async (client) => {
      client.headers(1, REQUEST, Flag.END_HEADERS);
      const response = await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 1);
      expect(response.flags & Flag.END_STREAM).toBe(Flag.END_STREAM);
      expect(await client.reset(1)).toBe(ErrorCode.NO_ERROR);
      expect(client.frames.indexOf(response)).toBeLessThan(client.frames.findIndex((f) => f.type === FrameType.RST_STREAM));
    });
  });

  test("DATA after the client's END_STREAM resets the stream with STREAM_CLOSED", async () => {
    handler = () => {}; // never answers, so the stream stays half-closed
    await withRawClient(async (client) => {
      client.headers(1, REQUEST);
      client.send(...frame(FrameType.DATA, 0, 1, Buffer.from("late")));
      expect(await client.reset(1)).toBe(ErrorCode.STREAM_CLOSED);
    });
  });

  test("streams beyond the 1,000 concurrent are refused, and the earlier ones stay open", async () => {
    handler = () => {};
    await withRawClient(async (client) => {
      const frames: Buffer[] = [];
      for (let i = 0; i < 1001; i++) frames.push(...frame(FrameType.HEADERS, Flag.END_HEADERS, 1 + 2 * i, client.encoder.encode(REQUEST)));
      client.send(...frames);
      expect(await client.reset(2001)).toBe(ErrorCode.REFUSED_STREAM);
      expect(client.frames.filter((f) => f.type === FrameType.RST_STREAM)).toHaveLength(1);
    });
  });

  test("a header list over 64 KiB gets 431; the HPACK state stays in step for the next request", async () => {
    await withRawClient(async (client) => {
      const big = client.encoder.encode([...REQUEST, ["x-big", "b".repeat(70 * 1024)]]);
      const frames: Buffer[] = [];
      for (let offset = 0; offset < big.length; offset += 16_384) {
        const piece = big.subarray(offset, offset + 16_384);
        const last = offset + 16_384 >= big.length;
        frames.push(
          ...frame(offset === 0 ? FrameType.HEADERS : FrameType.CONTINUATION, (last ? Flag.END_HEADERS : 0) | (offset === 0 ? Flag.END_STREAM : 0), 1, piece),
        );
      }
      client.send(...frames);
      await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 1);
      client.headers(3, REQUEST);
      await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 3);
      expect(client.frames.some((f) => f.type === FrameType.GOAWAY)).toBe(false);
    });
  });

  test("a response to a client with a zero stream window waits for its WINDOW_UPDATEs, and sends no more than they allow", async () => {
    handler = (stream) =>
      stream.on("end", () => {
        stream.respond({ ":status": 200 });
        stream.write(Buffer.alloc(1000, 1));
        stream.end({ "grpc-status": "0" });
      });
    await withRawClient(async (client) => {
      const data = () => client.frames.filter((f) => f.type === FrameType.DATA && f.streamId === 1).reduce((n, f) => n + f.payload.length, 0);
      client.send(CLIENT_PREFACE, ...settingsFrame([[0x4, 0]]));
      client.headers(1, REQUEST);
      await client.expectFrame((f) => f.type === FrameType.HEADERS && f.streamId === 1);
      client.send(...frame(FrameType.PING, 0, 0, Buffer.alloc(8)));
      await client.expectFrame((f) => f.type === FrameType.PING);
      expect(data()).toBe(0);
      client.send(...windowUpdateFrame(1, 400));
      await client.expectFrame((f) => f.type === FrameType.DATA);
      client.send(...frame(FrameType.PING, 0, 0, Buffer.alloc(8, 1)));
      await client.expectFrame((f) => f.type === FrameType.PING && f.payload[0] === 1);
      expect(data()).toBe(400);
      expect(client.frames.filter((f) => f.type === FrameType.HEADERS)).toHaveLength(1); // trailers wait behind the data
      client.send(...windowUpdateFrame(1, 600));
      const trailers = await client.expectFrame((f) => f.type === FrameType.HEADERS && (f.flags & Flag.END_STREAM) !== 0);
      expect(trailers.streamId).toBe(1);
      expect(data()).toBe(1000);
    }, false);
  });
});
