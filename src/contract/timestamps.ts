/** The wire's timestamps: UTC without offset or fraction, as upstream clients parse them. */

export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

export function formatTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19);
}

export function parseTimestamp(text: string): Date {
  return new Date(`${text}Z`);
}
