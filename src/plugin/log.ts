/**
 * Plugin logging. stdout belongs to the handshake, so everything goes to stderr, as hclog
 * JSON lines: go-plugin parses those and files them under the right level in the engine's
 * log (TF_LOG), while plain lines all land at debug.
 */
export type Level = "trace" | "debug" | "info" | "warn" | "error";

export interface Logger {
  (level: Level, message: string, fields?: Record<string, unknown>): void;
}

export function stderrLogger(module = "provider.terraform-provider-mgmt"): Logger {
  return (level, message, fields) => {
    // go-plugin parses @timestamp with exactly six fractional digits and drops the JSON
    // reading of the line (logging it raw at debug) when that fails.
    const timestamp = new Date().toISOString().replace(/Z$/, "000Z");
    const line = JSON.stringify({ "@level": level, "@message": message, "@module": module, "@timestamp": timestamp, ...fields });
    try {
      process.stderr.write(line + "\n");
    } catch {
      // The engine is gone; nothing useful to do with a log line.
    }
  };
}

export const describeError = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The fields an error is logged with: its message and, for an Error, where it was thrown. */
export const errorFields = (e: unknown): { error: string; stack: string | undefined } => ({
  error: describeError(e),
  stack: e instanceof Error ? e.stack : undefined,
});
