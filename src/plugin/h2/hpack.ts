/**
 * HPACK (RFC 7541): header compression for the plugin's HTTP/2 server.
 *
 * The decoder is complete: the static and dynamic tables, size updates, every literal form
 * and Huffman strings, since clients use all of them. The encoder is the simplest one the RFC
 * allows: it never adds to the dynamic table (so the peer's table size never matters to it)
 * and writes strings raw. A gRPC response's few short headers gain nothing from more.
 *
 * Header names and values are octets; they are read and written as latin1 strings, one
 * character per octet, so nothing is lost or re-encoded on the way through.
 */
import { HuffmanError, huffmanDecode } from "./huffman";

export type HeaderField = readonly [name: string, value: string];

export class HpackError extends Error {}
/** The block decoded correctly (the dynamic table is in step) but its list is over the limit. */
export class HeaderListTooLarge extends HpackError {}

/** Appendix A. */
const STATIC_TABLE: readonly HeaderField[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];

/** §4.1: an entry's size counts 32 octets of overhead besides its name and value. */
const entrySize = (name: string, value: string) => name.length + value.length + 32;

export class HpackDecoder {
  private readonly maxTableSize: number;
  private readonly maxHeaderListSize: number;
  /** The dynamic table, oldest first (index 62 is the newest, the last element). */
  private readonly entries: HeaderField[] = [];
  private tableLimit: number;
  private size = 0;

  constructor(options: { maxTableSize?: number; maxHeaderListSize?: number } = {}) {
    this.maxTableSize = options.maxTableSize ?? 4096;
    this.maxHeaderListSize = options.maxHeaderListSize ?? Infinity;
    this.tableLimit = this.maxTableSize;
  }

  /** The dynamic table, newest first, and its size (§4.1), as the RFC's examples show them. */
  get table(): { readonly entries: readonly HeaderField[]; readonly size: number } {
    return { entries: [...this.entries].reverse(), size: this.size };
  }

  decode(block: Uint8Array): HeaderField[] {
    const reader = new Reader(block);
    const fields: HeaderField[] = [];
    let listSize = 0;
    let sizeUpdateAllowed = true;
    while (!reader.done) {
      const first = reader.peek();
      if ((first & 0xe0) === 0x20) {
        // §4.2: size updates come first in a block, and stay within what SETTINGS allowed.
        if (!sizeUpdateAllowed) throw new HpackError("dynamic table size update after a header field");
        const limit = reader.integer(5);
        if (limit > this.maxTableSize) throw new HpackError(`dynamic table size ${limit} over the ${this.maxTableSize} allowed`);
        this.tableLimit = limit;
        this.evict(0);
        continue;
      }
      sizeUpdateAllowed = false;
      let field: HeaderField;
      if (first & 0x80) {
        field = this.lookup(reader.integer(7));
      } else {
        const indexing = (first & 0xc0) === 0x40;
        const index = reader.integer(indexing ? 6 : 4);
        const name = index === 0 ? reader.string() : this.lookup(index)[0];
        field = [name, reader.string()];
        if (indexing) this.add(field);
      }
      listSize += entrySize(field[0], field[1]);
      if (listSize <= this.maxHeaderListSize) fields.push(field);
    }
    if (listSize > this.maxHeaderListSize) throw new HeaderListTooLarge(`header list of ${listSize} octets over the ${this.maxHeaderListSize} allowed`);
    return fields;
  }

  private lookup(index: number): HeaderField {
    if (index === 0) throw new HpackError("header index 0");
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1];
    const dynamic = index - STATIC_TABLE.length - 1;
    if (dynamic >= this.entries.length) throw new HpackError(`header index ${index} beyond the table`);
    return this.entries[this.entries.length - 1 - dynamic];
  }

  /** §4.4: an entry larger than the whole table empties it and is not added. */
  private add(field: HeaderField): void {
    const size = entrySize(field[0], field[1]);
    this.evict(size);
    if (size > this.tableLimit) return;
    this.entries.push(field);
    this.size += size;
  }

  /** Evicts the oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    while (this.entries.length > 0 && this.size + room > this.tableLimit) {
      const [name, value] = this.entries.shift()!;
      this.size -= entrySize(name, value);
    }
  }
}

class Reader {
  private offset = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.offset >= this.bytes.length;
  }

  peek(): number {
    return this.bytes[this.offset];
  }

  /** §5.1, bounded at 2^31 - 1: no legitimate index, length or size is larger. */
  integer(prefixBits: number): number {
    const max = (1 << prefixBits) - 1;
    let value = this.bytes[this.offset++] & max;
    if (value < max) return value;
    for (let shift = 0; ; shift += 7) {
      if (this.done) throw new HpackError("truncated integer");
      const byte = this.bytes[this.offset++];
      value += (byte & 0x7f) * 2 ** shift;
      if (value > 0x7fff_ffff) throw new HpackError("integer over 2^31-1");
      if (!(byte & 0x80)) return value;
    }
  }

  /** §5.2: a length-prefixed string, raw or Huffman-coded. */
  string(): string {
    if (this.done) throw new HpackError("truncated header field");
    const huffman = (this.peek() & 0x80) !== 0;
    const length = this.integer(7);
    if (this.offset + length > this.bytes.length) throw new HpackError("string beyond the header block");
    const bytes = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    if (!huffman) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
    try {
      return huffmanDecode(bytes);
    } catch (e) {
      throw e instanceof HuffmanError ? new HpackError(e.message) : e;
    }
  }
}

/** Static-table positions: exact fields, and the first entry with each name. */
let staticIndex: { readonly fields: Map<string, number>; readonly names: Map<string, number> } | undefined;

function staticIndexes() {
  if (!staticIndex) {
    const fields = new Map<string, number>();
    const names = new Map<string, number>();
    STATIC_TABLE.forEach(([name, value], i) => {
      fields.set(`${name}\0${value}`, i + 1);
      if (!names.has(name)) names.set(name, i + 1);
    });
    staticIndex = { fields, names };
  }
  return staticIndex;
}

export class HpackEncoder {
  encode(fields: readonly HeaderField[]): Buffer {
    const { fields: exact, names } = staticIndexes();
    const out: number[] = [];
    for (const [name, value] of fields) {
      const index = exact.get(`${name}\0${value}`);
      if (index !== undefined) {
        integer(out, 0x80, 7, index);
        continue;
      }
      // Literal without indexing (§6.2.2), the name indexed when the static table has it.
      const nameIndex = names.get(name) ?? 0;
      integer(out, 0x00, 4, nameIndex);
      if (nameIndex === 0) rawString(out, name);
      rawString(out, value);
    }
    return Buffer.from(out);
  }
}

function integer(out: number[], pattern: number, prefixBits: number, value: number): void {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(pattern | value);
    return;
  }
  out.push(pattern | max);
  for (value -= max; value >= 128; value = Math.floor(value / 128)) out.push((value % 128) | 0x80);
  out.push(value);
}

function rawString(out: number[], text: string): void {
  const bytes = Buffer.from(text, "latin1");
  integer(out, 0x00, 7, bytes.length);
  for (const b of bytes) out.push(b);
}
