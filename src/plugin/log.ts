/**
 * Plugin logging. stdout belongs to the handshake, so everything goes to stderr, as hclog
 * JSON lines: go-plugin parses those and files them under the right level in the engine's
 * log (TF_LOG), while plain lines all land at debug.
 */
export type Level = "trace" | "debug" | "info" | "warn" | "error";

export interface Logger {
  (level: Level, message: string, fields?: Record<string, unknown>): void;
}

const RANK: Record<Level, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };

/**
 * The least level worth writing, read as the engines read it: TF_LOG_PROVIDER, else TF_LOG; a
 * level's name, or trace for any other value (TF_LOG=json). With neither set the engines drop
 * every line of the plugin's, having parsed it (a debug line per API request was a fair part of
 * the engine's own CPU in a plan), so then only warnings and errors are written.
 */
export function logThreshold(env: NodeJS.ProcessEnv): Level {
  const setting = (env.TF_LOG_PROVIDER || env.TF_LOG || "").trim().toLowerCase();
  if (!setting || setting === "off") return "warn";
  return setting in RANK ? (setting as Level) : "trace";
}

export function stderrLogger(env: NodeJS.ProcessEnv = process.env, module = "provider.terraform-provider-mgmt"): Logger {
  return lineLogger(env, (line) => process.stderr.write(line), module);
}

/** A logger that hands each line, newline included, to `write` (a shared host's session sends it to the start the engine reads). */
export function lineLogger(env: NodeJS.ProcessEnv, write: (line: string) => void, module = "provider.terraform-provider-mgmt"): Logger {
  const least = RANK[logThreshold(env)];
  return (level, message, fields) => {
    if (RANK[level] < least) return;
    // go-plugin parses @timestamp with exactly six fractional digits and drops the JSON
    // reading of the line (logging it raw at debug) when that fails.
    const timestamp = new Date().toISOString().replace(/Z$/, "000Z");
    const line = JSON.stringify({ "@level": level, "@message": message, "@module": module, "@timestamp": timestamp, ...fields });
    try {
      write(line + "\n");
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
