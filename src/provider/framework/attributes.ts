/** Typed reads of attribute values and the common config checks. */
import { attr, error, type Diagnostic } from "./diagnostics";
import type { ObjectValue } from "./value";

/** A known string, or undefined for null/unknown (callers decide which they accept). */
export function knownString(obj: ObjectValue | null, name: string): string | undefined {
  const v = obj?.[name];
  return typeof v === "string" ? v : undefined;
}

export function requireString(obj: ObjectValue, name: string): string {
  const v = obj[name];
  if (typeof v !== "string") throw new Error(`attribute "${name}" must be a known string`);
  return v;
}

/** Length in characters as the API counts them (code points, not UTF-16 units). */
export function lengthBetween(config: ObjectValue, name: string, min: number, max: number): Diagnostic[] {
  const v = knownString(config, name);
  if (v === undefined) return [];
  const len = [...v].length;
  if (len < min || len > max) {
    return [error(`Invalid ${name}`, `${name} must be between ${min} and ${max} characters long; got ${len}.`, attr(name))];
  }
  return [];
}
