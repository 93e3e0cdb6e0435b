/**
 * The server's log: one JSON object per line, on stderr by default (stdout belongs to the
 * CLI's ready line). Callers never pass request headers or token values to it.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function lineLogger(write: (line: string) => void, clock: () => Date = () => new Date()): Logger {
  const log = (level: string) => (msg: string, fields?: LogFields) => write(`${JSON.stringify({ time: clock().toISOString(), level, msg, ...fields })}\n`);
  return { info: log("info"), error: log("error") };
}

export const stderrLogger: Logger = lineLogger((line) => process.stderr.write(line));

export const silentLogger: Logger = { info: () => {}, error: () => {} };
