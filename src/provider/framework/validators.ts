/**
 * Validators: pure checks of one known, non-null configuration value, answering a reason or
 * undefined. The framework runs them at plan (ValidateResourceConfig) and reports each failure
 * as "Invalid <attribute>" on the attribute's path. A rule the server enforces is the
 * contract's own (src/contract/field-rules.ts), which is a validator as it is.
 */
import { error, type Diagnostic } from "./diagnostics";
import type { TfValue } from "./value";

/** A method's type (see `OfValues` in ./attributes): a validator of one type is also one of the erased spec. */
export type Validator<T extends TfValue = TfValue> = { check(value: T): string | undefined }["check"];

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

/** Recognises a secret typed where it does not belong: a reason that never quotes the value, or undefined. */
export type SecretCheck = (value: string) => string | undefined;

/**
 * `check`, except on the values `secret` recognises (a string, or a list's or set's string elements): those
 * are left to `misplacedSecrets`. A validator's failure is reported on the attribute's path, and for such a
 * diagnostic the engines print the configuration line it points at, value and all (for cdktf's JSON, the
 * whole value). The framework applies it to every validator of an attribute declared with `secret`.
 */
export function leavingSecrets(secret: SecretCheck, check: Validator): Validator {
  return (value) => {
    if (typeof value === "string") return secret(value) === undefined ? check(value) : undefined;
    if (Array.isArray(value)) return check(value.filter((v) => typeof v !== "string" || secret(v) === undefined));
    return check(value);
  };
}

/**
 * Secrets in a configuration's string (or list of strings) attributes: one error per value, without an
 * attribute path. The engines then point at the block's header line and
 * print no configuration line, so the secret stays out of the engine's output and CI logs; the text
 * names the attribute (and element) instead.
 */
export function misplacedSecrets(typeName: string, config: Readonly<Record<string, TfValue>>, checks: Readonly<Record<string, SecretCheck>>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [name, secret] of Object.entries(checks)) {
    const value = config[name] ?? null;
    const values: readonly TfValue[] = Array.isArray(value) ? value : [value];
    values.forEach((v, i) => {
      if (typeof v !== "string") return;
      const reason = secret(v);
      if (reason === undefined) return;
      const where = Array.isArray(value) ? `${name} (element ${i + 1})` : name;
      out.push(
        error(
          `Invalid ${name}: a secret`,
          `${typeName}.${where}: ${reason}. The value is not repeated here (nor is the configuration line shown), so that it stays out of logs.`,
        ),
      );
    });
  }
  return out;
}
