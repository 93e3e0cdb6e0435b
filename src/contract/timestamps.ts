/**
 * Time, for the server and the provider alike. The wire's timestamps are UTC without offset or
 * fraction, as upstream clients parse them; a client sends a date-time in a looser form (an
 * offset, a fraction); the provider's attributes hold RFC 3339 instants. Each is read here into
 * milliseconds since the epoch, through one check that the fields name a real moment.
 */

export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** The last instant the wire form can show (its years have four digits), and that instant in the wire form. */
export const LAST_WIRE_MS = Date.UTC(9999, 11, 31, 23, 59, 59);
export const LAST_WIRE_TIMESTAMP = "9999-12-31T23:59:59";

/** The wire form of an instant (a Date or milliseconds since the epoch): UTC, whole seconds, no offset. */
export function formatTimestamp(at: Date | number): string {
  return (typeof at === "number" ? new Date(at) : at).toISOString().slice(0, 19);
}

export function parseTimestamp(text: string): Date {
  return new Date(`${text}Z`);
}

/** The UTC day (`YYYY-MM-DD`) of an instant, as reports and plans name a token's expiry. */
export function formatDay(at: Date | number): string {
  return formatTimestamp(at).slice(0, 10);
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Milliseconds since the epoch of a real calendar day written `YYYY-MM-DD` (its first instant, UTC), or undefined. */
export function parseDay(text: string): number | undefined {
  const m = DAY.exec(text);
  if (m === null) return undefined;
  const at = Date.UTC(2000, Number(m[2]) - 1, Number(m[3]));
  const day = new Date(at);
  day.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return formatDay(day) === text ? day.getTime() : undefined;
}

/** Date and time fields, a fraction, and an offset (`Z`, `+09:00`, `+0900`; empty for UTC). */
const FIELDS = "(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)?";
/** RFC 3339: the offset is required, and its letters may be lower case. */
const RFC3339 = new RegExp(`^${FIELDS}(Z|[+-]\\d{2}:\\d{2})$`, "i");
/** What a client may send the API: the offset is optional (none means UTC) and its colon too. */
const DATE_TIME_INPUT = new RegExp(`^${FIELDS}(Z|[+-]\\d{2}:?\\d{2})?$`);

/** Milliseconds since the epoch of a match of `FIELDS` and an offset, or undefined when they name no real moment. */
function instantOf(m: RegExpExecArray): number | undefined {
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const calendar = new Date(Date.UTC(2000, mo - 1, d, h, mi, s));
  // Date.UTC maps years 0-99 to the 1900s; the engines hand such years over (plantimestamp() during validate is 0000-01-01).
  calendar.setUTCFullYear(y, mo - 1, d);
  if (calendar.getUTCFullYear() !== y || calendar.getUTCMonth() !== mo - 1 || calendar.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  const offset = (m[8] ?? "Z").replace(":", "");
  if (offset.length > 1 && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(3, 5)) > 59)) return undefined;
  const offsetMinutes = offset.length > 1 ? (offset[0] === "-" ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5))) : 0;
  return calendar.getTime() + Math.round(Number(m[7] ?? 0) * 1000) - offsetMinutes * 60_000;
}

/** Milliseconds since the epoch of an RFC 3339 date-time, or undefined when it is not one (or names no real moment). */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  return m === null ? undefined : instantOf(m);
}

/**
 * Milliseconds since the epoch of a time as the API shows it (the wire form, UTC) or as the
 * provider's attributes hold it (RFC 3339), or undefined when it is neither.
 */
export function parseInstant(text: string): number | undefined {
  return parseRfc3339(TIMESTAMP_PATTERN.test(text) ? `${text}Z` : text);
}

/**
 * The wire form of a date-time a client sends (`YYYY-MM-DDTHH:MM:SS`, optionally with a
 * fraction, which is dropped, and an offset), or undefined when it is not one, names no real
 * moment, or falls outside the years the wire form can show.
 */
export function parseDateTimeInput(text: string): string | undefined {
  const m = DATE_TIME_INPUT.exec(text);
  const ms = m === null ? undefined : instantOf(m);
  if (ms === undefined) return undefined;
  const wire = formatTimestamp(ms);
  return TIMESTAMP_PATTERN.test(wire) ? wire : undefined;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * Milliseconds of a Go-style duration of hours, minutes, seconds and milliseconds ("2160h", "1h30m"), or undefined: the
 * form the provider's `expires_in` and `renew_before` take, read by the provider and the policy checks alike.
 */
export function parseDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) total += Number(amount) * UNIT_MS[unit!]!;
  return total;
}
