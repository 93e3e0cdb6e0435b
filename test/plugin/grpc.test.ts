/** @tier unit */
/**
 * The hand-written gRPC server against an independent client (@grpc/grpc-js), in process over
 * plaintext h2 served by the plugin's own HTTP/2 connection: framing, status trailers,
 * streaming, limits.
 */
import * as http2 from "node:http2";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { serveHttp2 } from "../../src/plugin/h2/connection";
import { FrameDecoder, MAX_MESSAGE_SIZE, encodeFrame } from "../../src/plugin/grpc/framing";
import { GrpcServer } from "../../src/plugin/grpc/server";
import { GrpcError, Status, decodeGrpcMessage, encodeGrpcMessage } from "../../src/plugin/grpc/status";

describe("framing", () => {
  test("frames are flag 0 + big-endian length + payload", () => {
    expect([...encodeFrame(Buffer.from("hi"))]).toEqual([0, 0, 0, 0, 2, 0x68, 0x69]);
  });

  test("decodes messages split and merged across chunks, byte by byte", () => {
    const a = Buffer.from("first message");
    const b = Buffer.alloc(70_000, 7);
    const wire = Buffer.concat([encodeFrame(a), encodeFrame(Buffer.alloc(0)), encodeFrame(b)]);
    for (const size of [1, 3, 5, 1000, wire.length]) {
      const d = new FrameDecoder();
      const out: Uint8Array[] = [];
      for (let i = 0; i < wire.length; i += size) out.push(...d.push(wire.subarray(i, i + size)));
      expect(out.map((m) => Buffer.from(m))).toEqual([a, Buffer.alloc(0), b]);
      expect(d.partial).toBe(false);
    }
  });

  test("reports a truncated message", () => {
    const d = new FrameDecoder();
    expect(d.push(encodeFrame(Buffer.from("abc")).subarray(0, 6))).toEqual([]);
    expect(d.partial).toBe(true);
  });

  test("refuses compressed messages and messages over the limit", () => {
    expect(() => new FrameDecoder().push(Buffer.from([1, 0, 0, 0, 0]))).toThrow(expect.objectContaining({ code: Status.UNIMPLEMENTED }));
    expect(() => new FrameDecoder(10).push(Buffer.from([0, 0, 0, 0, 11]))).toThrow(expect.objectContaining({ code: Status.RESOURCE_EXHAUSTED }));
    expect(MAX_MESSAGE_SIZE).toBe(256 * 1024 * 1024);
  });
});

describe("grpc-message encoding", () => {
  test("percent-encodes '%', controls and non-ASCII as UTF-8 bytes", () => {
    expect(encodeGrpcMessage("a b%c\nd é")).toBe("a b%25c%0Ad %C3%A9");
    expect(decodeGrpcMessage(encodeGrpcMessage("a b%c\nd é ✓"))).toBe("a b%c\nd é ✓");
  });
});

describe("server", () => {
  let server: net.Server;
  const sockets = new Set<net.Socket>();
  let client: grpc.Client;
  const errors: string[] = [];
  const echo = (b: Buffer) => b;
  const lateSignal: AbortSignal[] = [];

  beforeAll(async () => {
    const router = new GrpcServer({ onError: (path, e) => errors.push(`${path}: ${(e as Error).message}`) });
    router.unary("/t.S/Echo", (req) => req);
    router.unary("/t.S/Fail", () => {
      throw new GrpcError(Status.INVALID_ARGUMENT, "bad input\nline 2 — ünïcode");
    });
    // The plugin's bundles each carry their own copy of the status module (dist/calls.js throws, dist/services.js catches).
    let OtherCopy!: typeof GrpcError;
    jest.isolateModules(() => {
      OtherCopy = (require("../../src/plugin/grpc/status") as typeof import("../../src/plugin/grpc/status")).GrpcError;
    });
    expect(OtherCopy).not.toBe(GrpcError);
    router.unary("/t.S/FailFromOtherCopy", () => {
      throw new OtherCopy(Status.NOT_FOUND, "unknown service nope");
    });
    router.unary("/t.S/Crash", async () => {
      throw new Error("handler blew up");
    });
    router.serverStream("/t.S/Count", async (req, call) => {
      const n = req[0];
      for (let i = 0; i < n; i++) await call.send(Buffer.from([i]));
    });
    router.serverStream("/t.S/HalfThenFail", async (_req, call) => {
      await call.send(Buffer.from("one"));
      throw new GrpcError(Status.UNAVAILABLE, "gone");
    });
    router.unary("/t.S/AwaitAbort", (_req, call) => {
      const { signal } = call;
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve(Buffer.alloc(0))));
    });
    router.unary("/t.S/AskLate", (_req, call) => {
      call.afterResponse(() => lateSignal.push(call.signal));
      return new Promise(() => {});
    });
    server = net.createServer((socket) => {
      sockets.add(socket);
      serveHttp2(socket, { onStream: (s, h) => router.handleStream(s, h) });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": -1,
      "grpc.max_send_message_length": -1,
    });
  });

  afterAll(async () => {
    client.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => server.close(r));
  });

  const unary = (path: string, body: Buffer) =>
    new Promise<Buffer>((resolve, reject) => client.makeUnaryRequest(path, echo, echo, body, (err, res) => (err ? reject(err) : resolve(res!))));

  const stream = (path: string, body: Buffer) =>
    new Promise<{ messages: Buffer[]; error?: grpc.ServiceError }>((resolve) => {
      const messages: Buffer[] = [];
      const call = client.makeServerStreamRequest(path, echo, echo, body);
      call.on("data", (m: Buffer) => messages.push(m));
      call.on("error", (error: grpc.ServiceError) => resolve({ messages, error }));
      call.on("end", () => resolve({ messages }));
    });

  test("unary round trip, including an empty and a large (20 MB) message", async () => {
    expect(await unary("/t.S/Echo", Buffer.from("ping"))).toEqual(Buffer.from("ping"));
    expect(await unary("/t.S/Echo", Buffer.alloc(0))).toEqual(Buffer.alloc(0));
    const big = Buffer.alloc(20 * 1024 * 1024, 0xab);
    expect((await unary("/t.S/Echo", big)).equals(big)).toBe(true);
  });

  test("a GrpcError becomes its status with a percent-encoded message", async () => {
    await expect(unary("/t.S/Fail", Buffer.alloc(0))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: "bad input\nline 2 — ünïcode" });
  });

  test("so does a GrpcError made by another copy of the status module", async () => {
    await expect(unary("/t.S/FailFromOtherCopy", Buffer.alloc(0))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND, details: "unknown service nope" });
  });

  test("any other failure is INTERNAL and reported", async () => {
    await expect(unary("/t.S/Crash", Buffer.alloc(0))).rejects.toMatchObject({ code: grpc.status.INTERNAL, details: "handler blew up" });
    expect(errors).toContain("/t.S/Crash: handler blew up");
  });

  test("a cancelled call aborts its signal, whether the handler asked for it before or after", async () => {
    const cancelled = (path: string) =>
      new Promise<grpc.ServiceError>((resolve) => {
        const call = client.makeUnaryRequest(path, echo, echo, Buffer.alloc(0), (err) => resolve(err!));
        setTimeout(() => call.cancel(), 50);
      });
    expect(await cancelled("/t.S/AwaitAbort")).toMatchObject({ code: grpc.status.CANCELLED });
    // The first handler's promise only settled because its signal aborted; the second asks once the stream is gone.
    expect(await cancelled("/t.S/AskLate")).toMatchObject({ code: grpc.status.CANCELLED });
    for (let i = 0; i < 100 && lateSignal.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(lateSignal).toHaveLength(1);
    expect(lateSignal[0].aborted).toBe(true);
  });

  test("unknown methods are UNIMPLEMENTED", async () => {
    await expect(unary("/t.S/Nope", Buffer.alloc(0))).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
  });

  test("server streams: none, several, and an error after a message", async () => {
    expect(await stream("/t.S/Count", Buffer.from([0]))).toEqual({ messages: [] });
    expect((await stream("/t.S/Count", Buffer.from([5]))).messages.map((m) => m[0])).toEqual([0, 1, 2, 3, 4]);
    const r = await stream("/t.S/HalfThenFail", Buffer.alloc(0));
    expect(r.messages).toEqual([Buffer.from("one")]);
    expect(r.error).toMatchObject({ code: grpc.status.UNAVAILABLE, details: "gone" });
  });

  test("non-gRPC requests get plain HTTP answers", async () => {
    const { port } = server.address() as AddressInfo;
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const status = (headers: http2.OutgoingHttpHeaders) =>
      new Promise<number>((resolve, reject) => {
        const req = session.request(headers);
        req.on("response", (h) => resolve(Number(h[":status"])));
        req.on("error", reject);
        req.end();
      });
    expect(await status({ ":method": "GET", ":path": "/t.S/Echo" })).toBe(405);
    expect(await status({ ":method": "POST", ":path": "/t.S/Echo", "content-type": "application/json" })).toBe(415);
    session.close();
  });
});
