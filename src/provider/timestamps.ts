/**
 * Time in the provider's attributes: RFC 3339 instants (compared as instants, whatever their
 * offset) and Go-style durations ("2160h", "1h30m"), the forms Terraform users already write
 * for `timeadd()` and `time_rotating`.
 */

/** The API's UTC timestamps (no offset) shown in state as RFC 3339, which Terraform functions parse. */
export const toRfc3339 = (apiTimestamp: string): string => (apiTimestamp.endsWith("Z") ? apiTimestamp : `${apiTimestamp}Z`);

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch of an RFC 3339 date-time, or undefined when it is not one (or names no real moment). */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const calendar = new Date(Date.UTC(2000, mo - 1, d, h, mi, s));
  // Date.UTC maps years 0-99 to the 1900s; the engines hand such years over (plantimestamp() during validate is 0000-01-01).
  calendar.setUTCFullYear(y, mo - 1, d);
  if (calendar.getUTCFullYear() !== y || calendar.getUTCMonth() !== mo - 1 || calendar.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  const offset = m[8]!;
  if (offset.length > 1 && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return undefined;
  const offsetMinutes = offset.length > 1 ? (offset[0] === "-" ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))) : 0;
  return calendar.getTime() + Math.round(Number(m[7] ?? 0) * 1000) - offsetMinutes * 60_000;
}

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

/** The API's input form of an instant: UTC, whole seconds, no offset. */
export const toApiTimestamp = (ms: number): string => new Date(ms).toISOString().slice(0, 19);

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** Milliseconds of a Go-style duration of hours, minutes, seconds and milliseconds ("2160h", "1h30m"), or undefined. */
export function parseDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) total += Number(amount) * UNIT_MS[unit!]!;
  return total;
}

export function positiveDuration(text: string): string | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) return `must be a duration such as "2160h", "90m" or "1h30m" (units h, m, s, ms); got "${text}"`;
  return ms <= 0 ? `must be longer than zero; got "${text}"` : undefined;
}
