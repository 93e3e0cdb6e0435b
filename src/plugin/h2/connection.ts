/**
 * The server side of one HTTP/2 connection (RFC 9113), as much as a gRPC server needs: request
 * streams opened by the client, responses with trailers, flow control both ways, SETTINGS, PING
 * and GOAWAY. It serves the one client the plugin has, the engine, on a socket whose TLS (if
 * any) is already done.
 *
 * Why not node:http2: loading it, with node:http and the rest it pulls in, then setting up its
 * session for the first stream, was about a third of what the plugin added to node's own start
 * before its first answer, and the engines start the plugin several times per command.
 *
 * Local settings: the default 16 KiB frames and 4 KiB HPACK table; 1 MiB stream windows and a
 * 16 MiB connection window, returned as data is handed to the stream (requests reach 256 MiB);
 * at most 1,000 concurrent streams. Server push is never used.
 */
import { EventEmitter } from "node:events";
import type { Duplex } from "node:stream";
import {
  CLIENT_PREFACE,
  DEFAULT_WINDOW,
  ErrorCode,
  FRAME_HEADER_LENGTH,
  Flag,
  type FrameHeader,
  FrameType,
  MAX_MAX_FRAME_SIZE,
  MAX_WINDOW,
  MIN_MAX_FRAME_SIZE,
  Setting,
  frame,
  goawayFrame,
  headerFrames,
  readFrameHeader,
  rstStreamFrame,
  settingsFrame,
  unpad,
  windowUpdateFrame,
} from "./frames";
import { type IncomingHeaders, type OutgoingHeaders, presetBlock, presetHeaders, requestHeaders, responseFields } from "./headers";
import { HeaderListTooLarge, HpackDecoder, HpackEncoder, HpackError } from "./hpack";

const LOCAL_SETTINGS = {
  maxConcurrentStreams: 1000,
  streamWindow: 1024 * 1024,
  connectionWindow: 16 * 1024 * 1024,
  maxHeaderListSize: 64 * 1024,
} as const;
/** A header block (compressed) beyond this is abuse, not a request: the connection is closed. */
const MAX_HEADER_BLOCK = 1024 * 1024;
/** Queued response bytes past which write() asks the caller to wait for 'drain'. */
const HIGH_WATER_MARK = 64 * 1024;

export interface ConnectionOptions {
  readonly onStream: (stream: ServerStream, headers: IncomingHeaders) => void;
  /** Protocol errors and refused streams, for the debug log. */
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** A connection error (§5.4.1): GOAWAY with this code, then the connection closes. */
class ConnectionError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One request stream, as the application sees it. Events: 'data' (Buffer), 'end' (the request
 * is complete), 'drain' (write() may be called again), 'close' (the stream is over: answered,
 * reset by either side, or its connection gone).
 */
export class ServerStream extends EventEmitter {
  constructor(
    readonly id: number,
    private readonly connection: Connection,
  ) {
    super();
  }

  /** True once nothing more can be sent on this stream. */
  get closed(): boolean {
    return this.connection.isLocallyClosed(this.id);
  }

  /** Sends the response headers; with endStream, they are the whole response. */
  respond(headers: OutgoingHeaders, options: { endStream?: boolean } = {}): void {
    this.connection.respond(this.id, headers, options.endStream === true);
  }

  /** Queues response data; false when the caller should wait for 'drain'. */
  write(data: Uint8Array): boolean {
    return this.connection.write(this.id, data);
  }

  /** Ends the response after the queued data: with trailers, or with an empty END_STREAM DATA frame. */
  end(trailers?: OutgoingHeaders): void {
    this.connection.end(this.id, trailers);
  }
}

interface StreamState {
  readonly stream: ServerStream;
  sendWindow: number;
  recvWindow: number;
  /** Bytes handed to the stream and not yet returned to the client as window. */
  recvCredit: number;
  headersSent: boolean;
  /** The client has sent END_STREAM (or the stream was reset). */
  remoteClosed: boolean;
  /** end() was called: the queued data, then `trailers` (or an empty DATA frame), end the stream. */
  ending: { readonly trailers: OutgoingHeaders | undefined } | undefined;
  readonly pending: Buffer[];
  pendingBytes: number;
  needDrain: boolean;
}

interface HeaderBlock {
  readonly streamId: number;
  readonly endStream: boolean;
  readonly fragments: Buffer[];
  size: number;
}

const EMPTY = Buffer.alloc(0);
const HEADER_LIST_TOO_LARGE = presetHeaders({ ":status": 431 });

export function serveHttp2(socket: Duplex, options: ConnectionOptions): void {
  new Connection(socket, options);
}

class Connection {
  private input: Buffer = EMPTY;
  private prefaceSeen = false;
  private settingsSeen = false;
  private readonly decoder = new HpackDecoder({ maxHeaderListSize: LOCAL_SETTINGS.maxHeaderListSize });
  private readonly encoder = new HpackEncoder();
  private readonly streams = new Map<number, StreamState>();
  /** Streams with data waiting for window, in the order they blocked. */
  private readonly blocked = new Set<StreamState>();
  private lastStreamId = 0;
  private headerBlock: HeaderBlock | undefined;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrameSize = MIN_MAX_FRAME_SIZE;
  private sendWindow = DEFAULT_WINDOW;
  private recvWindow = LOCAL_SETTINGS.connectionWindow;
  private recvCredit = 0;
  private outbox: Buffer[] = [];
  private outboxBytes = 0;
  /** Streams closed while frames waited in the outbox; told so once those are written. */
  private closedSinceFlush: ServerStream[] = [];
  private flushScheduled = false;
  private dead = false;

  constructor(
    private readonly socket: Duplex,
    private readonly options: ConnectionOptions,
  ) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (e: Error) => this.log("HTTP/2 connection error", { error: e.message }));
    socket.on("close", () => this.teardown());
    // The server's preface: our SETTINGS, then the connection window beyond the default.
    this.send(
      ...settingsFrame([
        [Setting.MAX_CONCURRENT_STREAMS, LOCAL_SETTINGS.maxConcurrentStreams],
        [Setting.INITIAL_WINDOW_SIZE, LOCAL_SETTINGS.streamWindow],
        [Setting.MAX_HEADER_LIST_SIZE, LOCAL_SETTINGS.maxHeaderListSize],
      ]),
      ...windowUpdateFrame(0, LOCAL_SETTINGS.connectionWindow - DEFAULT_WINDOW),
    );
  }

  // --- what ServerStream asks for ---------------------------------------------------------

  isLocallyClosed(id: number): boolean {
    const state = this.streams.get(id);
    return !state || state.ending !== undefined;
  }

  respond(id: number, headers: OutgoingHeaders, endStream: boolean): void {
    const state = this.streams.get(id);
    if (!state) return;
    if (state.headersSent) throw new Error(`stream ${id}: response headers already sent`);
    state.headersSent = true;
    this.sendHeaders(id, headers, endStream);
    if (endStream) this.closeLocal(state);
  }

  write(id: number, data: Uint8Array): boolean {
    const state = this.streams.get(id);
    if (!state || state.ending) return true;
    if (!state.headersSent) throw new Error(`stream ${id}: data before response headers`);
    if (data.length > 0) {
      state.pending.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      state.pendingBytes += data.length;
      this.flushStream(state);
    }
    if (state.pendingBytes < HIGH_WATER_MARK) return true;
    state.needDrain = true;
    return false;
  }

  end(id: number, trailers: OutgoingHeaders | undefined): void {
    const state = this.streams.get(id);
    if (!state || state.ending) return;
    if (!state.headersSent) throw new Error(`stream ${id}: end before response headers`);
    state.ending = { trailers };
    this.flushStream(state);
  }

  // --- reading ------------------------------------------------------------------------------

  private receive(chunk: Buffer): void {
    if (this.dead) return;
    this.input = this.input.length === 0 ? chunk : Buffer.concat([this.input, chunk]);
    try {
      this.parse();
    } catch (e) {
      if (!(e instanceof ConnectionError)) throw e;
      this.fail(e.code, e.message);
    }
  }

  private parse(): void {
    const input = this.input;
    let offset = 0;
    if (!this.prefaceSeen) {
      const seen = input.subarray(0, CLIENT_PREFACE.length);
      if (!seen.equals(CLIENT_PREFACE.subarray(0, seen.length))) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "not an HTTP/2 client preface");
      if (seen.length < CLIENT_PREFACE.length) return;
      this.prefaceSeen = true;
      offset = CLIENT_PREFACE.length;
    }
    while (!this.dead && input.length - offset >= FRAME_HEADER_LENGTH) {
      const header = readFrameHeader(input, offset);
      // We never raise SETTINGS_MAX_FRAME_SIZE, so the default is the limit (§4.2).
      if (header.length > MIN_MAX_FRAME_SIZE) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, `frame of ${header.length} bytes`);
      const end = offset + FRAME_HEADER_LENGTH + header.length;
      if (input.length < end) break;
      const payload = input.subarray(offset + FRAME_HEADER_LENGTH, end);
      offset = end;
      this.onFrame(header, payload);
    }
    this.input = offset === input.length ? EMPTY : input.subarray(offset);
  }

  private onFrame(h: FrameHeader, payload: Buffer): void {
    if (this.headerBlock && h.type !== FrameType.CONTINUATION) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "a header block was interrupted");
    if (!this.settingsSeen) {
      if (h.type !== FrameType.SETTINGS || h.flags & Flag.ACK) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "the client preface must end with SETTINGS");
      this.settingsSeen = true;
    }
    switch (h.type) {
      case FrameType.DATA:
        return this.onData(h, payload);
      case FrameType.HEADERS:
        return this.onHeaders(h, payload);
      case FrameType.CONTINUATION:
        return this.onContinuation(h, payload);
      case FrameType.PRIORITY:
        return this.onPriority(h, payload);
      case FrameType.RST_STREAM:
        return this.onRstStream(h, payload);
      case FrameType.SETTINGS:
        return this.onSettings(h, payload);
      case FrameType.PUSH_PROMISE:
        throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "a client sent PUSH_PROMISE");
      case FrameType.PING:
        return this.onPing(h, payload);
      case FrameType.GOAWAY:
        if (h.streamId !== 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "GOAWAY on a stream");
        if (h.length < 8) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "GOAWAY shorter than 8 bytes");
        // The engine closes the connection itself after its GOAWAY; nothing to do until then.
        return;
      case FrameType.WINDOW_UPDATE:
        return this.onWindowUpdate(h, payload);
      default:
        return; // Unknown frame types are ignored (§5.5).
    }
  }

  private onHeaders(h: FrameHeader, payload: Buffer): void {
    if (h.streamId === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "HEADERS on stream 0");
    let fragment = unpad(payload, h.flags);
    if (!fragment) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "HEADERS padding exceeds the frame");
    if (h.flags & Flag.PRIORITY) {
      if (fragment.length < 5) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "HEADERS too short for its priority");
      fragment = fragment.subarray(5);
    }
    const block: HeaderBlock = { streamId: h.streamId, endStream: (h.flags & Flag.END_STREAM) !== 0, fragments: [fragment], size: fragment.length };
    if (h.flags & Flag.END_HEADERS) this.onHeaderBlock(block);
    else this.headerBlock = block;
  }

  private onContinuation(h: FrameHeader, payload: Buffer): void {
    const block = this.headerBlock;
    if (!block || block.streamId !== h.streamId) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "CONTINUATION without a header block to continue");
    block.fragments.push(payload);
    block.size += payload.length;
    if (block.size > MAX_HEADER_BLOCK) throw new ConnectionError(ErrorCode.ENHANCE_YOUR_CALM, "header block over 1 MiB");
    if (h.flags & Flag.END_HEADERS) {
      this.headerBlock = undefined;
      this.onHeaderBlock(block);
    }
  }

  private onHeaderBlock(block: HeaderBlock): void {
    const { streamId } = block;
    // Every block is decoded, even for a stream about to be refused: HPACK state is per connection.
    let fields;
    let tooLarge = false;
    try {
      fields = this.decoder.decode(block.fragments.length === 1 ? block.fragments[0] : Buffer.concat(block.fragments));
    } catch (e) {
      if (!(e instanceof HeaderListTooLarge)) {
        throw new ConnectionError(ErrorCode.COMPRESSION_ERROR, e instanceof HpackError ? e.message : "undecodable header block");
      }
      tooLarge = true;
    }
    if (streamId % 2 === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, `stream ${streamId} is not a client stream`);

    const existing = this.streams.get(streamId);
    if (existing) {
      // Trailers from the client: they only end the request (gRPC clients send none).
      if (existing.remoteClosed) return this.reset(existing, ErrorCode.STREAM_CLOSED);
      if (!block.endStream) return this.reset(existing, ErrorCode.PROTOCOL_ERROR);
      return this.closeRemote(existing);
    }
    if (streamId <= this.lastStreamId) throw new ConnectionError(ErrorCode.STREAM_CLOSED, `HEADERS on closed stream ${streamId}`);
    this.lastStreamId = streamId;

    if (this.streams.size >= LOCAL_SETTINGS.maxConcurrentStreams) {
      this.log("refused a stream over the concurrency limit", { stream: streamId });
      return this.send(...rstStreamFrame(streamId, ErrorCode.REFUSED_STREAM));
    }
    if (tooLarge || !fields) {
      // §8.2.3 / RFC 6585: the request is not served; the client learns why.
      this.sendHeaders(streamId, HEADER_LIST_TOO_LARGE, true);
      if (!block.endStream) this.send(...rstStreamFrame(streamId, ErrorCode.NO_ERROR));
      return;
    }
    const check = requestHeaders(fields);
    if (!check.ok) {
      this.log("refused a malformed request", { stream: streamId, reason: check.reason });
      return this.send(...rstStreamFrame(streamId, ErrorCode.PROTOCOL_ERROR));
    }
    const state: StreamState = {
      stream: new ServerStream(streamId, this),
      sendWindow: this.peerInitialWindow,
      recvWindow: LOCAL_SETTINGS.streamWindow,
      recvCredit: 0,
      headersSent: false,
      remoteClosed: false,
      ending: undefined,
      pending: [],
      pendingBytes: 0,
      needDrain: false,
    };
    this.streams.set(streamId, state);
    this.options.onStream(state.stream, check.headers);
    if (block.endStream) this.closeRemote(state);
  }

  private onData(h: FrameHeader, payload: Buffer): void {
    if (h.streamId === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "DATA on stream 0");
    // Flow control counts the whole frame, padding included (§6.9.1).
    if (h.length > this.recvWindow) throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
    this.recvWindow -= h.length;
    this.creditConnection(h.length);
    const data = unpad(payload, h.flags);
    if (!data) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "DATA padding exceeds the frame");

    const state = this.streams.get(h.streamId);
    if (!state) {
      if (h.streamId > this.lastStreamId) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, `DATA on idle stream ${h.streamId}`);
      return; // A stream we closed: the client may still have had data in flight.
    }
    if (state.remoteClosed) return this.reset(state, ErrorCode.STREAM_CLOSED);
    if (h.length > state.recvWindow) return this.reset(state, ErrorCode.FLOW_CONTROL_ERROR);
    state.recvWindow -= h.length;
    if (data.length > 0) state.stream.emit("data", data);
    if (!this.streams.has(h.streamId)) return; // the handler ended the call
    if (h.flags & Flag.END_STREAM) this.closeRemote(state);
    else this.creditStream(state, h.length);
  }

  private onPriority(h: FrameHeader, payload: Buffer): void {
    if (h.streamId === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "PRIORITY on stream 0");
    if (payload.length !== 5) {
      const state = this.streams.get(h.streamId);
      if (state) this.reset(state, ErrorCode.FRAME_SIZE_ERROR);
      else this.send(...rstStreamFrame(h.streamId, ErrorCode.FRAME_SIZE_ERROR));
    }
    // Prioritization is advisory and a gRPC client's streams are independent: ignored.
  }

  private onRstStream(h: FrameHeader, payload: Buffer): void {
    if (h.streamId === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "RST_STREAM on stream 0");
    if (payload.length !== 4) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "RST_STREAM not 4 bytes");
    const state = this.streams.get(h.streamId);
    if (state) {
      this.close(state);
    } else if (h.streamId > this.lastStreamId) {
      throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, `RST_STREAM on idle stream ${h.streamId}`);
    }
  }

  private onSettings(h: FrameHeader, payload: Buffer): void {
    if (h.streamId !== 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "SETTINGS on a stream");
    if (h.flags & Flag.ACK) {
      if (payload.length !== 0) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS ACK with a payload");
      return;
    }
    if (payload.length % 6 !== 0) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS not a multiple of 6 bytes");
    for (let offset = 0; offset < payload.length; offset += 6) {
      const id = payload.readUInt16BE(offset);
      const value = payload.readUInt32BE(offset + 2);
      switch (id) {
        case Setting.ENABLE_PUSH:
          if (value > 1) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH not 0 or 1");
          break;
        case Setting.INITIAL_WINDOW_SIZE: {
          if (value > MAX_WINDOW) throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1");
          const delta = value - this.peerInitialWindow;
          this.peerInitialWindow = value;
          // §6.9.2: every open stream's window moves by the difference, possibly below zero.
          for (const state of this.streams.values()) {
            state.sendWindow += delta;
            if (state.sendWindow > MAX_WINDOW) throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "a stream window over 2^31-1");
          }
          break;
        }
        case Setting.MAX_FRAME_SIZE:
          if (value < MIN_MAX_FRAME_SIZE || value > MAX_MAX_FRAME_SIZE)
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE out of range");
          this.peerMaxFrameSize = value;
          break;
        // HEADER_TABLE_SIZE bounds a dynamic table our encoder never uses; MAX_CONCURRENT_STREAMS
        // bounds streams we never open; MAX_HEADER_LIST_SIZE is advisory. Unknown ones are ignored.
        default:
          break;
      }
    }
    this.send(...frame(FrameType.SETTINGS, Flag.ACK, 0));
    this.flushBlocked();
  }

  private onPing(h: FrameHeader, payload: Buffer): void {
    if (h.streamId !== 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "PING on a stream");
    if (payload.length !== 8) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "PING not 8 bytes");
    if (!(h.flags & Flag.ACK)) this.send(...frame(FrameType.PING, Flag.ACK, 0, Buffer.from(payload)));
  }

  private onWindowUpdate(h: FrameHeader, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "WINDOW_UPDATE not 4 bytes");
    const increment = payload.readUInt32BE(0) & 0x7fff_ffff;
    if (h.streamId === 0) {
      if (increment === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
      if (this.sendWindow + increment > MAX_WINDOW) throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "connection window over 2^31-1");
      this.sendWindow += increment;
      return this.flushBlocked();
    }
    const state = this.streams.get(h.streamId);
    if (!state) {
      if (h.streamId > this.lastStreamId) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, `WINDOW_UPDATE on idle stream ${h.streamId}`);
      return;
    }
    if (increment === 0) return this.reset(state, ErrorCode.PROTOCOL_ERROR);
    if (state.sendWindow + increment > MAX_WINDOW) return this.reset(state, ErrorCode.FLOW_CONTROL_ERROR);
    state.sendWindow += increment;
    this.flushStream(state);
  }

  // --- flow control, receiving --------------------------------------------------------------

  /** Returns window once half of it is used: fewer WINDOW_UPDATEs, and the client never waits on a full window. */
  private creditConnection(n: number): void {
    this.recvCredit += n;
    if (this.recvCredit >= LOCAL_SETTINGS.connectionWindow / 2) {
      this.send(...windowUpdateFrame(0, this.recvCredit));
      this.recvWindow += this.recvCredit;
      this.recvCredit = 0;
    }
  }

  private creditStream(state: StreamState, n: number): void {
    state.recvCredit += n;
    if (state.recvCredit >= LOCAL_SETTINGS.streamWindow / 2) {
      this.send(...windowUpdateFrame(state.stream.id, state.recvCredit));
      state.recvWindow += state.recvCredit;
      state.recvCredit = 0;
    }
  }

  // --- sending --------------------------------------------------------------------------------

  /** Sends what the windows allow of a stream's queue, then its end once the queue is empty. */
  private flushStream(state: StreamState): void {
    const id = state.stream.id;
    while (state.pending.length > 0) {
      const chunk = state.pending[0];
      const n = Math.min(chunk.length, state.sendWindow, this.sendWindow, this.peerMaxFrameSize);
      if (n <= 0) {
        this.blocked.add(state);
        return;
      }
      this.send(...frame(FrameType.DATA, 0, id, chunk.subarray(0, n)));
      state.sendWindow -= n;
      this.sendWindow -= n;
      state.pendingBytes -= n;
      if (n === chunk.length) state.pending.shift();
      else state.pending[0] = chunk.subarray(n);
    }
    this.blocked.delete(state);
    if (state.needDrain) {
      state.needDrain = false;
      process.nextTick(() => state.stream.emit("drain"));
    }
    if (state.ending) {
      const { trailers } = state.ending;
      if (trailers) this.sendHeaders(id, trailers, true);
      else this.send(...frame(FrameType.DATA, Flag.END_STREAM, id));
      this.closeLocal(state);
    }
  }

  private sendHeaders(id: number, headers: OutgoingHeaders, endStream: boolean): void {
    const block = presetBlock(headers) ?? this.encoder.encode(responseFields(headers));
    this.send(...headerFrames(id, block, endStream, this.peerMaxFrameSize));
  }

  private flushBlocked(): void {
    for (const state of [...this.blocked]) {
      if (this.sendWindow <= 0) return;
      this.flushStream(state);
    }
  }

  // --- stream ends -----------------------------------------------------------------------------

  /** The request is complete; the stream stays open (in `streams`) until our response ends it. */
  private closeRemote(state: StreamState): void {
    state.remoteClosed = true;
    state.stream.emit("end");
  }

  /**
   * Our END_STREAM is out. A client still sending is told to stop without error (§8.1): the
   * response is complete and did not need the rest.
   */
  private closeLocal(state: StreamState): void {
    if (!state.remoteClosed) this.send(...rstStreamFrame(state.stream.id, ErrorCode.NO_ERROR));
    this.close(state);
  }

  /** A stream error (§5.4.2): RST_STREAM, and the stream is over for both sides. */
  private reset(state: StreamState, code: ErrorCode): void {
    this.log("reset a stream", { stream: state.stream.id, code });
    this.send(...rstStreamFrame(state.stream.id, code));
    this.close(state);
  }

  /** The stream is over for both sides, however it ended: a stream is open while it is in `streams`. */
  private close(state: StreamState): void {
    if (!this.streams.delete(state.stream.id)) return;
    this.blocked.delete(state);
    // After the frames that ended it are written: whoever waits for 'close' (Shutdown, to exit) sees the answer out.
    if (this.flushScheduled) this.closedSinceFlush.push(state.stream);
    else process.nextTick(() => state.stream.emit("close"));
  }

  // --- the connection --------------------------------------------------------------------------

  /**
   * Frames go out together at the end of the event loop's turn: every response finished while
   * handling one batch of reads or of the provider's own I/O leaves in one write, one TLS
   * record and one wake-up of the engine. Writes, not bytes, are what the plugin's CPU goes to
   * when the engine asks ten calls at a time.
   */
  private send(...frames: Buffer[]): void {
    if (this.dead) return;
    for (const f of frames) {
      this.outbox.push(f);
      this.outboxBytes += f.length;
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flushLater);
    }
  }

  private readonly flushLater = (): void => this.flush();

  private flush(): void {
    this.flushScheduled = false;
    const out = this.outbox;
    const bytes = this.outboxBytes;
    this.outbox = [];
    this.outboxBytes = 0;
    if (out.length > 0 && !this.socket.destroyed) this.socket.write(out.length === 1 ? out[0] : Buffer.concat(out, bytes));
    const closed = this.closedSinceFlush;
    if (closed.length > 0) {
      this.closedSinceFlush = [];
      process.nextTick(() => {
        for (const stream of closed) stream.emit("close");
      });
    }
  }

  /** A connection error: GOAWAY naming the last stream we saw, then close. */
  private fail(code: ErrorCode, message: string): void {
    this.log("HTTP/2 protocol error; closing the connection", { code, error: message });
    this.send(...goawayFrame(this.lastStreamId, code, message));
    this.flush();
    this.dead = true;
    this.socket.end();
    this.teardown();
    // A client that does not close its side after GOAWAY is not waited for.
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  private teardown(): void {
    this.dead = true;
    this.outbox = [];
    this.outboxBytes = 0;
    for (const state of [...this.streams.values()]) this.close(state);
  }

  private log(message: string, fields?: Record<string, unknown>): void {
    this.options.log?.(message, fields);
  }
}
