/**
 * Equality directed by the value's type, as Terraform itself compares values: sets as sets (order
 * and the order the API happens to return never make a diff), numbers as numbers (a bigint and a
 * number of the same value are equal), objects and maps key by key, lists in order.
 */
import { isDynamic, isUnknown, type ObjectValue, type TfType, type TfValue } from "./value";

export function typedEqual(type: TfType, a: TfValue, b: TfValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || isUnknown(a) || isUnknown(b)) return false;
  if (typeof type === "string") {
    switch (type) {
      case "number":
        return isNumeric(a) && isNumeric(b) && numbersEqual(a, b);
      case "dynamic":
        return isDynamic(a) && isDynamic(b) && JSON.stringify(a.type) === JSON.stringify(b.type) && typedEqual(a.type, a.value, b.value);
      default:
        return false; // strings and bools: only identical values are equal (checked above)
    }
  }
  const [kind, inner] = type;
  switch (kind) {
    case "list":
      return isList(a) && isList(b) && a.length === b.length && a.every((v, i) => typedEqual(inner, v, b[i]!));
    case "tuple":
      return isList(a) && isList(b) && a.length === b.length && a.every((v, i) => typedEqual(inner[i]!, v, b[i]!));
    case "set":
      return isList(a) && isList(b) && sameMembers(inner, a, b);
    case "map":
      return isObject(a) && isObject(b) && sameKeys(a, b) && Object.keys(a).every((k) => typedEqual(inner, a[k]!, b[k]!));
    case "object":
      return isObject(a) && isObject(b) && Object.entries(inner).every(([k, t]) => typedEqual(t, a[k] ?? null, b[k] ?? null));
  }
}

/** Each element of `a` matched by a distinct equal element of `b` (sets hold no duplicates, but state may). */
function sameMembers(type: TfType, a: readonly TfValue[], b: readonly TfValue[]): boolean {
  if (a.length !== b.length) return false;
  const unmatched = [...b];
  for (const v of a) {
    const i = unmatched.findIndex((w) => typedEqual(type, v, w));
    if (i < 0) return false;
    unmatched.splice(i, 1);
  }
  return true;
}

const isNumeric = (v: TfValue): v is number | bigint => typeof v === "number" || typeof v === "bigint";
function numbersEqual(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === typeof b) return a === b;
  const [n, big] = (typeof a === "number" ? [a, b] : [b, a]) as [number, bigint];
  return Number.isInteger(n) && BigInt(n) === big;
}
const isList = (v: TfValue): v is readonly TfValue[] => Array.isArray(v);
const isObject = (v: TfValue): v is ObjectValue => typeof v === "object" && v !== null && !Array.isArray(v) && !isDynamic(v);
const sameKeys = (a: ObjectValue, b: ObjectValue): boolean => Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => k in b);
