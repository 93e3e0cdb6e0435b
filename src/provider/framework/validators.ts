/**
 * Validators: pure checks of one known, non-null configuration value, answering a reason or
 * undefined. The framework runs them at plan (ValidateResourceConfig) and reports each failure
 * as "Invalid <attribute>" on the attribute's path. Limits come from the contract: `matches`
 * runs one of its zod schemas, so a rule the server enforces is written once.
 */
import type { TfValue } from "./value";

export type Validator<T extends TfValue = TfValue> = (value: T) => string | undefined;

/** The part of a zod schema validation needs (kept structural so the framework does not load zod). */
export interface Parser {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly { message: string; path: readonly PropertyKey[] }[] } };
}

/** The value must parse with this contract schema; the reasons are the contract's. */
export function matches<T extends TfValue>(schema: Parser): Validator<T> {
  return (value) => {
    const result = schema.safeParse(value);
    if (result.success) return undefined;
    return [...new Set(result.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message)))].join("; ");
  };
}

/** Length in characters as a person counts them (code points), inclusive bounds. */
export function lengthBetween(min: number, max: number): Validator<string> {
  return (value) => {
    const length = [...value].length;
    return length < min || length > max ? `must be between ${min} and ${max} characters long; got ${length}` : undefined;
  };
}

export function oneOf(values: readonly string[]): Validator<string> {
  return (value) => (values.includes(value) ? undefined : `must be one of ${values.map((v) => `"${v}"`).join(", ")}; got "${value}"`);
}

export function atLeast(min: number): Validator<number> {
  return (value) => (Number(value) >= min ? undefined : `must be at least ${min}; got ${value}`);
}

export function between(min: number, max: number): Validator<number> {
  return (value) => (Number(value) >= min && Number(value) <= max ? undefined : `must be between ${min} and ${max}; got ${value}`);
}

/** Applies an element validator to every known element of a list or set, naming the element. */
export function eachElement<E extends TfValue>(check: Validator<E>): Validator<readonly TfValue[]> {
  return (values) => {
    const reasons = values.flatMap((v, i) => {
      if (v === null || typeof v === "symbol") return [];
      const reason = check(v as E);
      return reason === undefined ? [] : [`element ${i + 1}: ${reason}`];
    });
    return reasons.length > 0 ? reasons.join("; ") : undefined;
  };
}
