/**
 * HTTP/2 framing (RFC 9113 §4, §6): the constants and the byte layout of the frames the
 * plugin's server reads and writes. Pure functions; the connection holds the state.
 */

export const CLIENT_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
export const FRAME_HEADER_LENGTH = 9;

export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

export const Flag = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  SETTINGS_TIMEOUT: 0x4,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  CONNECT_ERROR: 0xa,
  ENHANCE_YOUR_CALM: 0xb,
  INADEQUATE_SECURITY: 0xc,
  HTTP_1_1_REQUIRED: 0xd,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

export const DEFAULT_WINDOW = 65_535;
export const MAX_WINDOW = 2 ** 31 - 1;
export const MIN_MAX_FRAME_SIZE = 16_384;
export const MAX_MAX_FRAME_SIZE = 2 ** 24 - 1;

export interface FrameHeader {
  readonly length: number;
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
}

/** The 9-byte frame header at `offset` (the reserved bit of the stream id is ignored, §4.1). */
export function readFrameHeader(bytes: Buffer, offset: number): FrameHeader {
  return {
    length: bytes.readUIntBE(offset, 3),
    type: bytes[offset + 3],
    flags: bytes[offset + 4],
    streamId: bytes.readUInt32BE(offset + 5) & 0x7fff_ffff,
  };
}

function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_LENGTH);
  out.writeUIntBE(length, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId, 5);
  return out;
}

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer[] {
  return payload.length === 0 ? [frameHeader(0, type, flags, streamId)] : [frameHeader(payload.length, type, flags, streamId), payload];
}

export function settingsFrame(settings: readonly (readonly [id: number, value: number])[]): Buffer[] {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frame(FrameType.SETTINGS, 0, 0, payload);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer[] {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment, 0);
  return frame(FrameType.WINDOW_UPDATE, 0, streamId, payload);
}

export function rstStreamFrame(streamId: number, code: ErrorCode): Buffer[] {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code, 0);
  return frame(FrameType.RST_STREAM, 0, streamId, payload);
}

export function goawayFrame(lastStreamId: number, code: ErrorCode, debug: string): Buffer[] {
  const text = Buffer.from(debug, "utf8");
  const payload = Buffer.allocUnsafe(8 + text.length);
  payload.writeUInt32BE(lastStreamId, 0);
  payload.writeUInt32BE(code, 4);
  text.copy(payload, 8);
  return frame(FrameType.GOAWAY, 0, 0, payload);
}

/** A header block as one HEADERS frame and as many CONTINUATION frames as maxFrameSize needs. */
export function headerFrames(streamId: number, block: Buffer, endStream: boolean, maxFrameSize: number): Buffer[] {
  const out: Buffer[] = [];
  let offset = 0;
  do {
    const piece = block.subarray(offset, offset + maxFrameSize);
    const first = offset === 0;
    offset += piece.length;
    const flags = (offset >= block.length ? Flag.END_HEADERS : 0) | (first && endStream ? Flag.END_STREAM : 0);
    out.push(...frame(first ? FrameType.HEADERS : FrameType.CONTINUATION, flags, streamId, piece));
  } while (offset < block.length);
  return out;
}

/** The payload of a PADDED frame without its pad-length byte and padding; undefined if the padding does not fit (§6.1). */
export function unpad(payload: Buffer, flags: number): Buffer | undefined {
  if (!(flags & Flag.PADDED)) return payload;
  if (payload.length < 1) return undefined;
  const padLength = payload[0];
  if (padLength >= payload.length) return undefined;
  return payload.subarray(1, payload.length - padLength);
}
