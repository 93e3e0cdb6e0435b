/**
 * gRPC length-prefixed messages: 1 byte compressed flag, 4 bytes big-endian length, payload.
 * HTTP/2 DATA frames split and merge these freely, so decoding is incremental.
 */
import { GrpcError, Status } from "./status";

/** terraform-plugin-go's limit; Terraform asks for schemas up to 64 MiB. */
export const MAX_MESSAGE_SIZE = 256 * 1024 * 1024;

const HEADER = 5;

export function encodeFrame(message: Uint8Array): Buffer {
  if (message.length > MAX_MESSAGE_SIZE) {
    throw new GrpcError(Status.RESOURCE_EXHAUSTED, `response message of ${message.length} bytes exceeds the limit of ${MAX_MESSAGE_SIZE}`);
  }
  const out = Buffer.allocUnsafe(HEADER + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, HEADER);
  return out;
}

export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxSize = MAX_MESSAGE_SIZE) {}

  /** Feeds bytes; returns every message completed by them. */
  push(chunk: Buffer): Uint8Array[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: Uint8Array[] = [];
    while (this.buffered >= HEADER) {
      const head = this.peek(HEADER);
      if (head[0] !== 0) {
        // We never advertise grpc-accept-encoding, so a compressed message is a client bug.
        throw new GrpcError(Status.UNIMPLEMENTED, "compressed gRPC messages are not supported");
      }
      const length = head.readUInt32BE(1);
      if (length > this.maxSize) {
        throw new GrpcError(Status.RESOURCE_EXHAUSTED, `request message of ${length} bytes exceeds the limit of ${this.maxSize}`);
      }
      if (this.buffered < HEADER + length) break;
      const whole = this.take(HEADER + length);
      messages.push(whole.subarray(HEADER));
    }
    return messages;
  }

  /** True when a message has started but not finished: the request ended mid-message. */
  get partial(): boolean {
    return this.buffered > 0;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }
}
