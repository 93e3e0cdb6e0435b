/**
 * cty values in msgpack, the form Terraform sends every DynamicValue in and the form we
 * answer in. Written by hand rather than through a generic msgpack library because the
 * mapping is type-directed both ways: the schema type decides whether a map is an object
 * or a map, how a number may be spelled, and where a [type, value] pair is expected; and
 * every extension, whatever its code, means "unknown".
 */
import { Unknown, isDynamic, type TfType, type TfValue } from "../../provider/framework/value";
import { atAttr, atIndex, atKey, codecError, type Loc } from "./errors";
import {
  canonicalNumber,
  compareKeys,
  describeJs,
  expected,
  hasOwn,
  isRecord,
  parseDecimal,
  setOwn,
  shapeOf,
  tupleLength,
  typeFromJsonText,
  typeJsonText,
  unsupportedAttribute,
  utf8Encoder,
} from "./json";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;

// ---------------------------------------------------------------------------------------
// Encoding

const strHeaderSize = (n: number): number => (n < 32 ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5);

class Writer {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  private len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.buf.subarray(0, this.len));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }

  /** Returns the offset of n freshly reserved bytes. */
  private take(n: number): number {
    this.ensure(n);
    const at = this.len;
    this.len += n;
    return at;
  }

  // Each method reserves before touching this.buf: take() may swap in a bigger buffer.
  byte(b: number): void {
    const at = this.take(1);
    this.buf[at] = b;
  }
  tagged8(tag: number, v: number): void {
    const at = this.take(2);
    this.buf[at] = tag;
    this.buf[at + 1] = v;
  }
  tagged16(tag: number, v: number): void {
    const at = this.take(3);
    this.buf[at] = tag;
    this.view.setUint16(at + 1, v);
  }
  tagged32(tag: number, v: number): void {
    const at = this.take(5);
    this.buf[at] = tag;
    this.view.setUint32(at + 1, v);
  }
  bytes(b: Uint8Array): void {
    const at = this.take(b.length);
    this.buf.set(b, at);
  }

  nil(): void {
    this.byte(0xc0);
  }
  /** fixext1, type 0, one zero byte: what go-cty writes for an unknown without refinements. */
  unknown(): void {
    this.byte(0xd4);
    this.byte(0x00);
    this.byte(0x00);
  }
  bool(v: boolean): void {
    this.byte(v ? 0xc3 : 0xc2);
  }

  /** Smallest form, positives in the uint family, as Go's msgpack EncodeInt does. */
  safeInt(n: number): void {
    if (n >= 0) {
      if (n < 0x80) this.byte(n);
      else if (n <= 0xff) this.tagged8(0xcc, n);
      else if (n <= 0xffff) this.tagged16(0xcd, n);
      else if (n <= 0xffffffff) this.tagged32(0xce, n);
      else this.uint64(BigInt(n));
    } else {
      if (n >= -32) this.byte(n & 0xff);
      else if (n >= -0x80) this.tagged8(0xd0, n & 0xff);
      else if (n >= -0x8000) this.tagged16(0xd1, n & 0xffff);
      else if (n >= -0x80000000) this.tagged32(0xd2, n >>> 0);
      else this.int64(BigInt(n));
    }
  }
  uint64(v: bigint): void {
    const at = this.take(9);
    this.buf[at] = 0xcf;
    this.view.setBigUint64(at + 1, v);
  }
  int64(v: bigint): void {
    const at = this.take(9);
    this.buf[at] = 0xd3;
    this.view.setBigInt64(at + 1, v);
  }
  float64(v: number): void {
    const at = this.take(9);
    this.buf[at] = 0xcb;
    this.view.setFloat64(at + 1, v);
  }

  /**
   * Encodes straight into the buffer: a TextEncoder.encode() per string costs more than the
   * rest of the encoder. The header size depends on the byte length, so the text goes after
   * a header sized for the worst case (3 bytes per UTF-16 unit) and slides back if smaller.
   */
  str(s: string): void {
    const max = s.length * 3;
    this.ensure(5 + max);
    const start = this.len;
    const room = strHeaderSize(max);
    let written = -1;
    if (s.length <= 64) {
      written = s.length;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          written = -1;
          break;
        }
        this.buf[start + room + i] = c;
      }
    }
    if (written < 0) written = utf8Encoder.encodeInto(s, this.buf.subarray(start + room)).written;
    const header = strHeaderSize(written);
    if (header !== room) this.buf.copyWithin(start + header, start + room, start + room + written);
    this.len = start; // capacity was ensured above, so the header writes cannot reallocate
    if (header === 1) this.byte(0xa0 | written);
    else if (header === 2) this.tagged8(0xd9, written);
    else if (header === 3) this.tagged16(0xda, written);
    else this.tagged32(0xdb, written);
    this.len += written;
  }
  bin(b: Uint8Array): void {
    if (b.length <= 0xff) this.tagged8(0xc4, b.length);
    else if (b.length <= 0xffff) this.tagged16(0xc5, b.length);
    else this.tagged32(0xc6, b.length);
    this.bytes(b);
  }
  arrayHeader(n: number): void {
    if (n < 16) this.byte(0x90 | n);
    else if (n <= 0xffff) this.tagged16(0xdc, n);
    else this.tagged32(0xdd, n);
  }
  mapHeader(n: number): void {
    if (n < 16) this.byte(0x80 | n);
    else if (n <= 0xffff) this.tagged16(0xde, n);
    else this.tagged32(0xdf, n);
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** msgpack for a value of the type, byte for byte as go-cty writes it where JS can tell. */
export function encodeValue(value: TfValue, type: TfType): Uint8Array {
  const w = new Writer();
  write(w, value, type, null);
  return w.result();
}

function write(w: Writer, v: TfValue, type: TfType, loc: Loc): void {
  const shape = shapeOf(type, loc);
  if (shape.kind === "dynamic") return writeDynamic(w, v, loc);
  if (v === Unknown) return w.unknown();
  if (v === null) return w.nil();
  switch (shape.kind) {
    case "string":
      if (typeof v !== "string") throw expected("string", v, loc);
      return w.str(v);
    case "bool":
      if (typeof v !== "boolean") throw expected("bool", v, loc);
      return w.bool(v);
    case "number":
      if (typeof v === "bigint") return writeInteger(w, v);
      if (typeof v !== "number") throw expected("number", v, loc);
      if (Number.isNaN(v)) throw codecError(loc, "NaN is not a number Terraform can represent");
      if (Number.isSafeInteger(v)) return w.safeInt(v);
      if (Number.isInteger(v)) return writeInteger(w, BigInt(v));
      return w.float64(v);
    case "list":
    case "set": {
      if (!Array.isArray(v)) throw expected(shape.kind, v, loc);
      const items: readonly TfValue[] = v;
      w.arrayHeader(items.length);
      // An index loop, not forEach: a sparse array's holes must fail, not vanish under a
      // header that already counted them.
      for (let i = 0; i < items.length; i++) {
        const at = atIndex(loc, i);
        write(w, element(items[i], at), shape.element, at);
      }
      return;
    }
    case "tuple": {
      if (!Array.isArray(v)) throw expected("tuple", v, loc);
      const items: readonly TfValue[] = v;
      if (items.length !== shape.elements.length) throw tupleLength(shape.elements.length, items.length, loc);
      w.arrayHeader(items.length);
      // An index loop, not forEach: a sparse array's holes must fail, not vanish under a
      // header that already counted them.
      for (let i = 0; i < items.length; i++) {
        const at = atIndex(loc, i);
        write(w, element(items[i], at), shape.elements[i], at);
      }
      return;
    }
    case "map": {
      if (!isRecord(v)) throw expected("map", v, loc);
      // undefined entries are how JS spells "absent"; they are not map elements.
      const keys = Object.keys(v)
        .filter((k) => v[k] !== undefined)
        .sort(compareKeys);
      w.mapHeader(keys.length);
      for (const key of keys) {
        w.str(key);
        write(w, v[key] as TfValue, shape.element, atKey(loc, key));
      }
      return;
    }
    case "object": {
      if (!isRecord(v)) throw expected("object", v, loc);
      const attrs = shape.attributes;
      for (const name of Object.keys(v)) {
        if (!hasOwn(attrs, name) && v[name] !== undefined) throw unsupportedAttribute(name, loc);
      }
      // Terraform rejects an object that lacks any attribute, so absent ones go out as null.
      const names = Object.keys(attrs).sort(compareKeys);
      w.mapHeader(names.length);
      for (const name of names) {
        w.str(name);
        const av = hasOwn(v, name) ? (v[name] as TfValue | undefined) : undefined;
        write(w, av === undefined ? null : av, attrs[name], atAttr(loc, name));
      }
      return;
    }
  }
}

function element(v: TfValue | undefined, loc: Loc): TfValue {
  if (v === undefined) throw codecError(loc, "undefined is not a Terraform value (use null)");
  return v;
}

/**
 * Integers that need more than a double: int64 and uint64 fit msgpack ints; beyond that
 * go-cty's order applies, float64 if exact and the decimal text otherwise.
 */
function writeInteger(w: Writer, b: bigint): void {
  if (b >= -MAX_SAFE && b <= MAX_SAFE) return w.safeInt(Number(b));
  if (b >= 0n && b <= MAX_UINT64) return w.uint64(b);
  if (b < 0n && b >= MIN_INT64) return w.int64(b);
  const f = Number(b);
  if (Number.isFinite(f) && BigInt(f) === b) return w.float64(f);
  w.str(b.toString());
}

/**
 * A dynamic position carries its concrete type as `[type JSON as bin, value]`. Only a value
 * whose type is itself unknown goes out bare: plain nil or plain unknown.
 */
function writeDynamic(w: Writer, v: TfValue, loc: Loc): void {
  if (v === null) return w.nil();
  if (v === Unknown) return w.unknown();
  if (!isDynamic(v)) {
    throw codecError(loc, `expected a DynamicValue {kind: "dynamic", type, value} for a dynamic-typed value, got ${describeJs(v)}`);
  }
  if (v.type === "dynamic") return writeDynamic(w, v.value, loc);
  w.arrayHeader(2);
  w.bin(utf8Encoder.encode(typeJsonText(v.type, loc)));
  write(w, v.value, v.type, loc);
}

// ---------------------------------------------------------------------------------------
// Decoding

type Head =
  | { readonly kind: "nil" | "ext" }
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "int"; readonly value: number | bigint }
  | { readonly kind: "float"; readonly value: number }
  | { readonly kind: "str"; readonly value: string }
  | { readonly kind: "bin"; readonly value: Uint8Array }
  | { readonly kind: "array" | "map"; readonly length: number };

// fatal: Terraform only sends UTF-8, so anything else is corruption rather than text.
// ignoreBOM: a string may legitimately start with U+FEFF; the default would strip it.
const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

class Reader {
  pos = 0;
  private readonly view: DataView;

  constructor(private readonly input: Uint8Array) {
    this.view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  }

  get remaining(): number {
    return this.input.length - this.pos;
  }

  private advance(n: number, loc: Loc): number {
    if (n > this.remaining) throw codecError(loc, "msgpack input ends in the middle of a value");
    const at = this.pos;
    this.pos += n;
    return at;
  }
  private u8(loc: Loc): number {
    return this.view.getUint8(this.advance(1, loc));
  }
  private u16(loc: Loc): number {
    return this.view.getUint16(this.advance(2, loc));
  }
  private u32(loc: Loc): number {
    return this.view.getUint32(this.advance(4, loc));
  }
  private raw(n: number, loc: Loc): Uint8Array {
    const at = this.advance(n, loc);
    return this.input.subarray(at, at + n);
  }
  private text(n: number, loc: Loc): Head {
    const bytes = this.raw(n, loc);
    // Same reasoning as Writer.str: short ASCII is most text, and TextDecoder's per-call
    // cost would dominate decoding.
    if (n <= 64) {
      let ascii = "";
      for (let i = 0; i < n && bytes[i] < 0x80; i++) ascii += String.fromCharCode(bytes[i]);
      if (ascii.length === n) return { kind: "str", value: ascii };
    }
    try {
      return { kind: "str", value: utf8Decoder.decode(bytes) };
    } catch {
      throw codecError(loc, "string is not valid UTF-8");
    }
  }
  private ext(n: number, loc: Loc): Head {
    this.advance(1 + n, loc); // type code + payload; what they say about the unknown is not needed
    return { kind: "ext" };
  }
  private container(kind: "array" | "map", length: number, loc: Loc): Head {
    // Every element takes at least one byte, so a larger count is corrupt; checking here
    // keeps a bogus 2^32 length from driving a long loop.
    if (length * (kind === "map" ? 2 : 1) > this.remaining) {
      throw codecError(loc, `msgpack ${kind} claims ${length} elements but only ${this.remaining} bytes remain`);
    }
    return { kind, length };
  }

  /** Reads one item's header; strings, binaries and extensions come with their payload. */
  next(loc: Loc): Head {
    const b = this.u8(loc);
    if (b <= 0x7f) return { kind: "int", value: b };
    if (b >= 0xe0) return { kind: "int", value: b - 0x100 };
    if (b >= 0xa0 && b <= 0xbf) return this.text(b & 0x1f, loc);
    if (b >= 0x90 && b <= 0x9f) return this.container("array", b & 0x0f, loc);
    if (b >= 0x80 && b <= 0x8f) return this.container("map", b & 0x0f, loc);
    const v = this.view;
    switch (b) {
      case 0xc0:
        return { kind: "nil" };
      case 0xc2:
        return { kind: "bool", value: false };
      case 0xc3:
        return { kind: "bool", value: true };
      case 0xc4:
        return { kind: "bin", value: this.raw(this.u8(loc), loc) };
      case 0xc5:
        return { kind: "bin", value: this.raw(this.u16(loc), loc) };
      case 0xc6:
        return { kind: "bin", value: this.raw(this.u32(loc), loc) };
      case 0xc7:
        return this.ext(this.u8(loc), loc);
      case 0xc8:
        return this.ext(this.u16(loc), loc);
      case 0xc9:
        return this.ext(this.u32(loc), loc);
      case 0xca:
        return { kind: "float", value: v.getFloat32(this.advance(4, loc)) };
      case 0xcb:
        return { kind: "float", value: v.getFloat64(this.advance(8, loc)) };
      case 0xcc:
        return { kind: "int", value: this.u8(loc) };
      case 0xcd:
        return { kind: "int", value: this.u16(loc) };
      case 0xce:
        return { kind: "int", value: this.u32(loc) };
      case 0xcf:
        return { kind: "int", value: v.getBigUint64(this.advance(8, loc)) };
      case 0xd0:
        return { kind: "int", value: v.getInt8(this.advance(1, loc)) };
      case 0xd1:
        return { kind: "int", value: v.getInt16(this.advance(2, loc)) };
      case 0xd2:
        return { kind: "int", value: v.getInt32(this.advance(4, loc)) };
      case 0xd3:
        return { kind: "int", value: v.getBigInt64(this.advance(8, loc)) };
      case 0xd4:
        return this.ext(1, loc);
      case 0xd5:
        return this.ext(2, loc);
      case 0xd6:
        return this.ext(4, loc);
      case 0xd7:
        return this.ext(8, loc);
      case 0xd8:
        return this.ext(16, loc);
      case 0xd9:
        return this.text(this.u8(loc), loc);
      case 0xda:
        return this.text(this.u16(loc), loc);
      case 0xdb:
        return this.text(this.u32(loc), loc);
      case 0xdc:
        return this.container("array", this.u16(loc), loc);
      case 0xdd:
        return this.container("array", this.u32(loc), loc);
      case 0xde:
        return this.container("map", this.u16(loc), loc);
      case 0xdf:
        return this.container("map", this.u32(loc), loc);
      default:
        throw codecError(loc, `byte 0x${b.toString(16)} does not start a msgpack value`);
    }
  }
}

/** A value of the type from msgpack as Terraform sends it. */
export function decodeValue(bytes: Uint8Array, type: TfType): TfValue {
  const r = new Reader(bytes);
  const value = read(r, type, null);
  if (r.remaining > 0) throw codecError(null, `${r.remaining} unexpected bytes after the msgpack value`);
  return value;
}

const headName: Record<Head["kind"], string> = {
  nil: "nil",
  ext: "extension",
  bool: "bool",
  int: "integer",
  float: "float",
  str: "string",
  bin: "binary",
  array: "array",
  map: "map",
};

function mismatch(what: string, head: Head, loc: Loc) {
  return codecError(loc, `expected ${what}, got msgpack ${headName[head.kind]}`);
}

function read(r: Reader, type: TfType, loc: Loc): TfValue {
  const shape = shapeOf(type, loc);
  const head = r.next(loc);
  // Any extension is an unknown: ext 0 is the plain one, ext 12 carries refinements
  // (not-null, prefix, bounds) that a provider may ignore.
  if (head.kind === "ext") return Unknown;
  if (head.kind === "nil") return null;
  switch (shape.kind) {
    case "string":
      if (head.kind !== "str") throw mismatch("string", head, loc);
      return head.value;
    case "bool":
      if (head.kind !== "bool") throw mismatch("bool", head, loc);
      return head.value;
    case "number":
      if (head.kind === "int") return canonicalNumber(head.value);
      if (head.kind === "float") {
        if (Number.isNaN(head.value)) throw codecError(loc, "NaN is not a number Terraform can represent");
        return canonicalNumber(head.value);
      }
      // go-cty writes numbers that no int64 or float64 holds exactly as decimal text.
      if (head.kind === "str") return parseDecimal(head.value, loc);
      throw mismatch("number", head, loc);
    case "list":
    case "set": {
      if (head.kind !== "array") throw mismatch(shape.kind, head, loc);
      const out: TfValue[] = [];
      for (let i = 0; i < head.length; i++) out.push(read(r, shape.element, atIndex(loc, i)));
      return out;
    }
    case "tuple": {
      if (head.kind !== "array") throw mismatch("tuple", head, loc);
      if (head.length !== shape.elements.length) throw tupleLength(shape.elements.length, head.length, loc);
      return shape.elements.map((t, i) => read(r, t, atIndex(loc, i)));
    }
    case "map": {
      if (head.kind !== "map") throw mismatch("map", head, loc);
      const out: Record<string, TfValue> = {};
      for (let i = 0; i < head.length; i++) {
        const key = readKey(r, "map keys", loc);
        if (hasOwn(out, key)) throw codecError(loc, `duplicate map key ${JSON.stringify(key)}`);
        setOwn(out, key, read(r, shape.element, atKey(loc, key)));
      }
      return out;
    }
    case "object": {
      if (head.kind !== "map") throw mismatch("object", head, loc);
      const attrs = shape.attributes;
      const got = new Map<string, TfValue>();
      for (let i = 0; i < head.length; i++) {
        const name = readKey(r, "object attribute names", loc);
        if (!hasOwn(attrs, name)) throw unsupportedAttribute(name, loc);
        if (got.has(name)) throw codecError(loc, `duplicate attribute ${JSON.stringify(name)}`);
        got.set(name, read(r, attrs[name], atAttr(loc, name)));
      }
      const out: Record<string, TfValue> = {};
      for (const name of Object.keys(attrs)) setOwn(out, name, got.get(name) ?? null);
      return out;
    }
    case "dynamic": {
      if (head.kind !== "array") throw mismatch("a [type, value] array for a dynamic value", head, loc);
      if (head.length !== 2) throw codecError(loc, `a dynamic value must be a [type, value] array, got ${head.length} elements`);
      const t = r.next(loc);
      // go-cty writes the type JSON as bin; its decoder reads str as well.
      let text: string;
      if (t.kind === "bin") text = decodeTypeText(t.value, loc);
      else if (t.kind === "str") text = t.value;
      else throw mismatch("type JSON (bin or string) in a dynamic value", t, loc);
      const concrete = typeFromJsonText(text, loc);
      const value = read(r, concrete, loc);
      return concrete === "dynamic" ? value : { kind: "dynamic", type: concrete, value };
    }
  }
}

function readKey(r: Reader, what: string, loc: Loc): string {
  const k = r.next(loc);
  if (k.kind !== "str") throw codecError(loc, `${what} must be strings, got msgpack ${headName[k.kind]}`);
  return k.value;
}

function decodeTypeText(bytes: Uint8Array, loc: Loc): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw codecError(loc, "type JSON is not valid UTF-8");
  }
}
