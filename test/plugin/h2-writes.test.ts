/** @tier unit */
/**
 * How the HTTP/2 server hands its frames to the socket: what is answered within one turn of the
 * event loop leaves in one write (one TLS record, one wake-up of the engine), and a stream is
 * reported closed only once the frames that ended it are written. Preset header lists encode
 * to exactly what encoding them on each response would give.
 */
import { Duplex } from "node:stream";
import { type ServerStream, serveHttp2 } from "../../src/plugin/h2/connection";
import { CLIENT_PREFACE, Flag, FrameType, type FrameHeader, frame, readFrameHeader, settingsFrame } from "../../src/plugin/h2/frames";
import { type OutgoingHeaders, presetBlock, presetHeaders, responseFields } from "../../src/plugin/h2/headers";
import { HpackDecoder, HpackEncoder } from "../../src/plugin/h2/hpack";

/** A socket that records each write the server makes. */
class RecordingSocket extends Duplex {
  readonly writes: Buffer[] = [];
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.writes.push(chunk);
    callback();
  }
  /** Bytes from the client. */
  client(...bytes: Buffer[]): void {
    this.push(Buffer.concat(bytes));
  }
}

interface Frame extends FrameHeader {
  readonly payload: Buffer;
}

function framesOf(bytes: Buffer): Frame[] {
  const out: Frame[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const h = readFrameHeader(bytes, offset);
    out.push({ ...h, payload: bytes.subarray(offset + 9, offset + 9 + h.length) });
    offset += 9 + h.length;
  }
  return out;
}

const REQUEST: [string, string][] = [
  [":method", "POST"],
  [":scheme", "http"],
  [":path", "/svc/Method"],
  ["content-type", "application/grpc"],
];

const RESPONSE = presetHeaders({ ":status": 200, "content-type": "application/grpc" });
const TRAILERS = presetHeaders({ "grpc-status": "0" });

/** Lets every pending immediate and tick run. */
const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

async function connected(onStream: (stream: ServerStream) => void): Promise<RecordingSocket> {
  const socket = new RecordingSocket();
  serveHttp2(socket, { onStream });
  socket.client(CLIENT_PREFACE, ...settingsFrame([]));
  await settle();
  socket.writes.splice(0);
  return socket;
}

const answer = (stream: ServerStream, body: string) => {
  stream.respond(RESPONSE);
  stream.write(Buffer.from(body));
  stream.end(TRAILERS);
};

describe("writes", () => {
  it("sends the whole answers of all streams answered in one turn in one write", async () => {
    const socket = await connected((stream) => stream.on("end", () => answer(stream, `answer ${stream.id}`)));
    const encoder = new HpackEncoder();
    socket.client(...[1, 3, 5].flatMap((id) => frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, encoder.encode(REQUEST))));
    await settle();

    expect(socket.writes).toHaveLength(1);
    const frames = framesOf(socket.writes[0]);
    expect(frames.map((f) => [f.streamId, f.type])).toEqual(
      [1, 3, 5].flatMap((id) => [
        [id, FrameType.HEADERS],
        [id, FrameType.DATA],
        [id, FrameType.HEADERS],
      ]),
    );
    const decoder = new HpackDecoder({ maxHeaderListSize: 65536 });
    for (const id of [1, 3, 5]) {
      const [headers, data, trailers] = frames.filter((f) => f.streamId === id);
      expect(decoder.decode(headers.payload)).toEqual([
        [":status", "200"],
        ["content-type", "application/grpc"],
      ]);
      expect(data.payload.toString()).toBe(`answer ${id}`);
      expect(trailers.flags & Flag.END_STREAM).toBe(Flag.END_STREAM);
      expect(decoder.decode(trailers.payload)).toEqual([["grpc-status", "0"]]);
    }
  });

  it("answers finished in different turns go out in separate writes", async () => {
    const ended: ServerStream[] = [];
    const socket = await connected((stream) => stream.on("end", () => ended.push(stream)));
    const encoder = new HpackEncoder();
    socket.client(...[1, 3].flatMap((id) => frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, encoder.encode(REQUEST))));
    await settle();
    const [first, second] = ended;
    answer(first!, "first");
    await settle();
    answer(second!, "second");
    await settle();
    expect(socket.writes.map((w) => [...new Set(framesOf(w).map((f) => f.streamId))])).toEqual([[1], [3]]);
  });

  it("reports a stream closed only after the frames that ended it are written", async () => {
    let writesAtClose = -1;
    const socket = await connected((stream) => {
      stream.on("close", () => (writesAtClose = socket.writes.length));
      stream.on("end", () => answer(stream, "bye"));
    });
    socket.client(...frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 1, new HpackEncoder().encode(REQUEST)));
    await settle();
    expect(writesAtClose).toBe(1);
    expect(framesOf(socket.writes[0]).at(-1)?.flags).toBe(Flag.END_HEADERS | Flag.END_STREAM);
  });
});

describe("preset header lists", () => {
  it("encode once to the bytes each response would have encoded", () => {
    const lists: OutgoingHeaders[] = [
      { ":status": 200, "content-type": "application/grpc" },
      { "grpc-status": "0" },
      { ":status": 431 },
      { "x-custom": "a value", ":status": 204 },
    ];
    for (const list of lists) {
      const preset = presetHeaders(list);
      expect(preset).toEqual(list);
      expect(Object.isFrozen(preset)).toBe(true);
      expect(presetBlock(preset)).toEqual(new HpackEncoder().encode(responseFields(list)));
    }
  });

  it("are recognised by identity only: an equal list built per call is encoded as usual", () => {
    presetHeaders({ "grpc-status": "0" });
    expect(presetBlock({ "grpc-status": "0" })).toBeUndefined();
  });
});
