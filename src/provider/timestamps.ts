/**
 * Time in the provider's attributes: RFC 3339 instants (compared as instants, whatever their
 * offset) and Go-style durations ("2160h", "1h30m"), the forms Terraform users already write
 * for `timeadd()` and `time_rotating`. Instants are read by the contract's time module.
 */
import { parseDuration, parseRfc3339 } from "../contract/timestamps";

/** The API's UTC timestamps (no offset) shown in state as RFC 3339, which Terraform functions parse. */
export const toRfc3339 = (apiTimestamp: string): string => (apiTimestamp.endsWith("Z") ? apiTimestamp : `${apiTimestamp}Z`);

export const rfc3339 = (text: string): string | undefined =>
  parseRfc3339(text) === undefined
    ? `must be an RFC 3339 date-time with an offset, such as 2030-01-01T00:00:00Z or 2030-01-01T09:00:00+09:00; got "${text}"`
    : undefined;

/**
 * One instant written two ways (2030-01-01T09:00:00+09:00 and 2030-01-01T00:00:00Z) is the same
 * value. Compared in whole seconds, the API's precision: it drops a fraction it is sent.
 */
export function sameInstant(a: string, b: string): boolean {
  const x = parseRfc3339(a);
  const y = parseRfc3339(b);
  return x !== undefined && y !== undefined && Math.floor(x / 1000) === Math.floor(y / 1000);
}

export function positiveDuration(text: string): string | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) return `must be a duration such as "2160h", "90m" or "1h30m" (units h, m, s, ms); got "${text}"`;
  return ms <= 0 ? `must be longer than zero; got "${text}"` : undefined;
}
