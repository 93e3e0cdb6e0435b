/**
 * The JSON side of cty: type JSON (schema attribute types and the type half of dynamic
 * values), decimal number text, and values given as JSON (DynamicValue.json and
 * UpgradeResourceState's raw_state.json). Also the type and number rules the msgpack codec
 * shares, so both wire forms decode to the same JS values.
 */
import { Unknown, type TfType, type TfValue } from "../../provider/framework/value";
import { atAttr, atIndex, atKey, codecError, type Loc } from "./errors";

// ---------------------------------------------------------------------------------------
// Types

export type TypeShape =
  | { readonly kind: "string" | "number" | "bool" | "dynamic" }
  | { readonly kind: "list" | "set" | "map"; readonly element: TfType }
  | { readonly kind: "object"; readonly attributes: { readonly [attr: string]: TfType } }
  | { readonly kind: "tuple"; readonly elements: readonly TfType[] };

const PRIMITIVE = new Set(["string", "number", "bool", "dynamic"]);
const COLLECTION = new Set(["list", "set", "map"]);

/**
 * Checks the outer layer of a type. Types normally come from our own schemas, but a
 * malformed one sent to Terraform as schema JSON crashes it, so every codec entry point
 * refuses them rather than trusting the static type.
 */
export function shapeOf(type: TfType, loc: Loc): TypeShape {
  const t: unknown = type;
  if (typeof t === "string") {
    if (PRIMITIVE.has(t)) return { kind: t as "string" | "number" | "bool" | "dynamic" };
  } else if (Array.isArray(t) && t.length === 2 && typeof t[0] === "string") {
    const [kind, arg] = t as [string, unknown];
    if (COLLECTION.has(kind)) return { kind: kind as "list" | "set" | "map", element: arg as TfType };
    if (kind === "object" && isRecord(arg)) return { kind, attributes: arg as { readonly [attr: string]: TfType } };
    if (kind === "tuple" && Array.isArray(arg)) return { kind, elements: arg as TfType[] };
  }
  throw codecError(loc, `invalid type ${safeJson(t)}`);
}

/** The bytes of a Schema.Attribute.type. */
export function encodeTypeJson(type: TfType): Uint8Array {
  return utf8Encoder.encode(typeJsonText(type, null));
}

/**
 * Compact JSON with object attributes in sorted order, which is what go-cty's MarshalJSON
 * writes; building the text directly also validates every nested type on the way.
 */
export function typeJsonText(type: TfType, loc: Loc): string {
  const shape = shapeOf(type, loc);
  switch (shape.kind) {
    case "string":
    case "number":
    case "bool":
    case "dynamic":
      return JSON.stringify(shape.kind);
    case "list":
    case "set":
    case "map":
      return `[${JSON.stringify(shape.kind)},${typeJsonText(shape.element, loc)}]`;
    case "object": {
      const names = Object.keys(shape.attributes).sort(compareKeys);
      const attrs = names.map((name) => `${JSON.stringify(name)}:${typeJsonText(shape.attributes[name], atAttr(loc, name))}`);
      return `["object",{${attrs.join(",")}}]`;
    }
    case "tuple":
      return `["tuple",[${shape.elements.map((t, i) => typeJsonText(t, atIndex(loc, i))).join(",")}]]`;
  }
}

/** A type given as parsed JSON, e.g. the `type` of a dynamic value. */
export function typeFromJson(json: unknown, loc: Loc): TfType {
  if (typeof json === "string" && PRIMITIVE.has(json)) return json as TfType;
  if (Array.isArray(json) && typeof json[0] === "string") {
    const [kind, arg] = json as [string, unknown];
    if (COLLECTION.has(kind) && json.length === 2) return [kind as "list" | "set" | "map", typeFromJson(arg, loc)];
    // A third element lists optional attributes; it only matters for type constraints,
    // never for the type of an actual value, so it is dropped.
    if (kind === "object" && (json.length === 2 || json.length === 3) && isRecord(arg)) {
      const attrs: Record<string, TfType> = {};
      for (const [name, t] of Object.entries(arg)) setOwn(attrs, name, typeFromJson(t, atAttr(loc, name)));
      return ["object", attrs];
    }
    if (kind === "tuple" && json.length === 2 && Array.isArray(arg)) return ["tuple", arg.map((t, i) => typeFromJson(t, atIndex(loc, i)))];
  }
  throw codecError(loc, `invalid type JSON ${safeJson(json)}`);
}

export function typeFromJsonText(text: string, loc: Loc): TfType {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw codecError(loc, `type is not valid JSON: ${JSON.stringify(text)}`);
  }
  return typeFromJson(parsed, loc);
}

// ---------------------------------------------------------------------------------------
// Numbers

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
// Integers wider than this are refused rather than expanded: "1e999999999" would
// otherwise build a billion-digit bigint. cty itself only keeps 512 bits of mantissa.
const MAX_INTEGER_DIGITS = 4096;

/**
 * One JS form per number whatever the wire used (int, uint64, float, decimal string, JSON):
 * integers beyond 2^53 are bigints, everything else a number, and -0 is 0 as cty treats it.
 * That way values decoded from msgpack and from state JSON compare equal.
 */
export function canonicalNumber(n: number | bigint): number | bigint {
  if (typeof n === "bigint") return n >= -MAX_SAFE && n <= MAX_SAFE ? Number(n) : n;
  if (n === 0) return 0;
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return BigInt(n);
  return n;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const INFINITY = /^([+-]?)(?:Inf|inf)$/;

/** Number text as cty accepts it (Go's big.ParseFloat in base 10). */
export function parseDecimal(text: string, loc: Loc): number | bigint {
  const inf = INFINITY.exec(text);
  if (inf) return inf[1] === "-" ? -Infinity : Infinity;
  const m = DECIMAL.exec(text);
  const [, sign = "", int = "", frac = "", exp = "0"] = m ?? [];
  if (!m || (int === "" && frac === "")) throw codecError(loc, `expected number, got string ${JSON.stringify(text)}`);
  const digits = (int + frac).replace(/^0+/, "");
  if (digits === "") return 0;
  const significant = digits.replace(/0+$/, "");
  const scale = Number(exp) - frac.length + (digits.length - significant.length);
  // Number() rounds a fraction to the nearest double, which is all a JS number can hold;
  // an integer is rebuilt exactly so 20-digit IDs survive.
  if (scale < 0) return canonicalNumber(Number(text));
  if (significant.length + scale > MAX_INTEGER_DIGITS) throw codecError(loc, `number ${text.slice(0, 40)}… is too large`);
  return canonicalNumber(BigInt(`${sign === "-" ? "-" : ""}${significant}${"0".repeat(scale)}`));
}

/** Plain decimal notation (no exponent), as cty renders a number converted to a string. */
function decimalText(n: number | bigint): string {
  if (typeof n === "bigint") return n.toString();
  if (Number.isInteger(n)) return BigInt(n).toString();
  const s = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e-(\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, lead, rest = "", e] = m;
  return `${sign}0.${"0".repeat(Number(e) - 1)}${lead}${rest}`;
}

// ---------------------------------------------------------------------------------------
// Shared helpers

export const utf8Encoder = new TextEncoder();

export const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** Assignment would set the prototype for a map key or attribute named `__proto__`. */
export function setOwn<T>(o: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Go's sort.Strings order (UTF-8 bytes), i.e. code point order; JS's default UTF-16 order
 * differs for astral characters against U+E000..U+FFFF.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

// ---------------------------------------------------------------------------------------
// Values

/**
 * A parsed JSON value read as a value of the type. JSON cannot carry unknowns. Like cty's
 * JSON decoder, primitives convert where cty would (number or bool text, a number or bool
 * for a string), so state written under an older attribute type still loads.
 */
export function decodeJsonValue(json: unknown, type: TfType): TfValue {
  return fromJson(json, type, null);
}

function fromJson(v: unknown, type: TfType, loc: Loc): TfValue {
  const shape = shapeOf(type, loc);
  if (v === null) return null;
  switch (shape.kind) {
    case "dynamic":
      return dynamicFromJson(v, loc);
    case "string":
      if (typeof v === "string") return v;
      if (typeof v === "boolean") return String(v);
      if ((typeof v === "number" && Number.isFinite(v)) || typeof v === "bigint") return decimalText(v);
      throw expected("string", v, loc);
    case "number":
      if (typeof v === "string") return parseDecimal(v, loc);
      if (typeof v === "bigint") return canonicalNumber(v);
      if (typeof v === "number") {
        if (Number.isNaN(v)) throw codecError(loc, "NaN is not a number Terraform can represent");
        return canonicalNumber(v);
      }
      throw expected("number", v, loc);
    case "bool":
      if (typeof v === "boolean") return v;
      if (v === "true" || v === "1") return true;
      if (v === "false" || v === "0") return false;
      throw expected("bool", v, loc);
    case "list":
    case "set":
      if (!Array.isArray(v)) throw expected(shape.kind, v, loc);
      return v.map((e, i) => fromJson(e, shape.element, atIndex(loc, i)));
    case "tuple":
      if (!Array.isArray(v)) throw expected("tuple", v, loc);
      if (v.length !== shape.elements.length) throw tupleLength(shape.elements.length, v.length, loc);
      return v.map((e, i) => fromJson(e, shape.elements[i], atIndex(loc, i)));
    case "map": {
      if (!isRecord(v)) throw expected("map", v, loc);
      const out: Record<string, TfValue> = {};
      for (const [key, e] of Object.entries(v)) setOwn(out, key, fromJson(e, shape.element, atKey(loc, key)));
      return out;
    }
    case "object": {
      if (!isRecord(v)) throw expected("object", v, loc);
      const attrs = shape.attributes;
      for (const name of Object.keys(v)) if (!hasOwn(attrs, name)) throw unsupportedAttribute(name, loc);
      const out: Record<string, TfValue> = {};
      for (const name of Object.keys(attrs)) {
        setOwn(out, name, hasOwn(v, name) ? fromJson(v[name], attrs[name], atAttr(loc, name)) : null);
      }
      return out;
    }
  }
}

/** cty's JSON form of a dynamic value: `{"value": <value JSON>, "type": <type JSON>}`. */
function dynamicFromJson(v: unknown, loc: Loc): TfValue {
  if (!isRecord(v)) throw expected(`dynamic value {"value": …, "type": …}`, v, loc);
  for (const key of Object.keys(v)) {
    if (key !== "value" && key !== "type") throw codecError(loc, `invalid key ${JSON.stringify(key)} in dynamically-typed value`);
  }
  if (!hasOwn(v, "type")) throw codecError(loc, "missing type in dynamically-typed value");
  if (!hasOwn(v, "value")) throw codecError(loc, "missing value in dynamically-typed value");
  const type = typeFromJson(v.type, loc);
  const value = fromJson(v.value, type, loc);
  return type === "dynamic" ? value : { kind: "dynamic", type, value };
}

// ---------------------------------------------------------------------------------------
// Messages shared with the msgpack codec

export function expected(what: string, got: unknown, loc: Loc) {
  return codecError(loc, `expected ${what}, got ${describeJs(got)}`);
}

export const tupleLength = (want: number, got: number, loc: Loc) => codecError(loc, `expected a tuple of ${want} element${want === 1 ? "" : "s"}, got ${got}`);

export const unsupportedAttribute = (name: string, loc: Loc) =>
  codecError(loc, `unsupported attribute ${JSON.stringify(name)}: the object type has no such attribute`);

export function describeJs(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "symbol") return v === Unknown ? "unknown" : "symbol";
  if (typeof v === "number") return Number.isNaN(v) ? "NaN" : "number";
  return typeof v;
}
