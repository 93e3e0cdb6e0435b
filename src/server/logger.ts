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

/** Characters a batch holds before it is written at once. */
export const BATCH_LIMIT = 64 * 1024;

/**
 * Lines collected and written together: those of one turn of the event loop in one write at
 * its end (a write to stderr is a system call, and one per request line was a thirteenth of a
 * served request's time), or at once past `limit` characters. `flush` writes what is waiting;
 * a batch still waiting when the process exits, normally or on an uncaught exception (node
 * emits `exit` for both), is written then, synchronously as stderr's writes are.
 */
export function batchedLines(write: (chunk: string) => void, limit = BATCH_LIMIT): { line(text: string): void; flush(): void } {
  let waiting = "";
  let scheduled = false;
  let onExit = false;
  const flush = () => {
    if (waiting === "") return;
    const chunk = waiting;
    waiting = "";
    write(chunk);
  };
  const endOfTurn = () => {
    scheduled = false;
    flush();
  };
  return {
    line(text) {
      waiting += text;
      if (waiting.length >= limit) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(endOfTurn).unref();
      }
      if (!onExit) {
        onExit = true;
        process.once("exit", flush);
      }
    },
    flush,
  };
}

const stderrLines = batchedLines((chunk) => process.stderr.write(chunk));

/** JSON lines on stderr, in batches (see `batchedLines`); an error goes out at once, after the lines before it. */
export const stderrLogger: Logger = (() => {
  const lines = lineLogger(stderrLines.line);
  return {
    info: lines.info,
    error: (msg, fields) => {
      lines.error(msg, fields);
      stderrLines.flush();
    },
  };
})();

export const silentLogger: Logger = { info: () => {}, error: () => {} };
