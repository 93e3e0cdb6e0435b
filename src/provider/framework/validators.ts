/**
 * Validators: pure checks of one known, non-null configuration value, answering a reason or
 * undefined. The framework runs them at plan (ValidateResourceConfig) and reports each failure
 * as "Invalid <attribute>" on the attribute's path. A rule the server enforces is the
 * contract's own (src/contract/field-rules.ts), which is a validator as it is.
 */
import type { TfValue } from "./value";

export type Validator<T extends TfValue = TfValue> = (value: T) => string | undefined;

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
