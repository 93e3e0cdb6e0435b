/**
 * Terraform's value model as the provider sees it: cty types in their JSON form and
 * plain JS values, with one sentinel for "not known until apply". The plugin layer turns
 * wire bytes into these; resources never see msgpack.
 */

/** A cty type in the JSON form Terraform uses in schemas (`"string"`, `["list","string"]`, ...). */
export type TfType =
  | "string"
  | "number"
  | "bool"
  | "dynamic"
  | readonly ["list", TfType]
  | readonly ["set", TfType]
  | readonly ["map", TfType]
  | readonly ["object", { readonly [attr: string]: TfType }]
  | readonly ["tuple", readonly TfType[]];

/** The value of an attribute that Terraform will only know after apply. */
export const Unknown: unique symbol = Symbol.for("mgmt.tf.unknown");
export type UnknownValue = typeof Unknown;

/**
 * A Terraform value. Numbers beyond 2^53 decode as bigint so no precision is lost;
 * `dynamic` values carry their concrete type alongside.
 */
export type TfValue = null | UnknownValue | string | number | bigint | boolean | readonly TfValue[] | { readonly [key: string]: TfValue } | DynamicValue;

export interface DynamicValue {
  readonly kind: "dynamic";
  readonly type: TfType;
  readonly value: TfValue;
}

export type ObjectValue = { readonly [attr: string]: TfValue };

export const isUnknown = (v: unknown): v is UnknownValue => v === Unknown;

/** True when no part of the value is unknown (what reads and applies must return). */
export function isWhollyKnown(v: TfValue): boolean {
  if (v === Unknown) return false;
  if (v === null || typeof v !== "object") return true;
  if (Array.isArray(v)) return v.every(isWhollyKnown);
  if (isDynamic(v)) return isWhollyKnown(v.value);
  return Object.values(v as ObjectValue).every(isWhollyKnown);
}

export function isDynamic(v: unknown): v is DynamicValue {
  return typeof v === "object" && v !== null && !Array.isArray(v) && (v as DynamicValue).kind === "dynamic" && "type" in v;
}

/** A value that is there and known, or undefined for null/unknown (a typed attribute: `known(config.scopes)`). */
export const known = <T>(v: T | null | UnknownValue | undefined): Exclude<T, UnknownValue> | undefined =>
  v === null || v === undefined || v === Unknown ? undefined : (v as Exclude<T, UnknownValue>);
