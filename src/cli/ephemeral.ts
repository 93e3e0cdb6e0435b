/**
 * `mgmt serve --ephemeral [serve flags] -- CMD ARGS...`: a throwaway local API around one command,
 * as LocalStack's `tflocal` wraps one engine run. The server is in memory on a free port; CMD runs
 * with MGMT_URL and MGMT_TOKEN set and the terminal (stdio) as its own; when CMD ends the server
 * stops, and mgmt exits with CMD's status, or 128 + the signal's number when a signal ended CMD.
 */
import { lineLogger, startServer, type Logger, type RunningServer } from "../server";
import { parseFlags, type FlagParse } from "./args";
import { EXIT, runWrapped, splitCommand } from "./wrapped-command";

export const EPHEMERAL_FLAG = "--ephemeral";

export const EPHEMERAL_USAGE = `usage: mgmt serve --ephemeral [--host ADDR] [--fixtures FILE | --no-default-fixtures]
                  [--rate-limit N] [--request-timeout MS] [--headers-timeout MS] -- CMD [ARGS...]

Starts an in-memory Management API on a free port, runs CMD with MGMT_URL and MGMT_TOKEN
set (the provider's settings) and with this terminal as its stdin, stdout and stderr, then
stops the server. Nothing is kept: the store ends with the command.

  mgmt serve --ephemeral -- tofu apply -auto-approve
  mgmt serve --ephemeral --no-default-fixtures -- npm test

exit status: CMD's own; 128 + N when signal N ended it; ${EXIT.serverFailed} when the server could not
start (CMD did not run); ${EXIT.notExecutable} when CMD cannot be run, ${EXIT.notFound} when it is not found; 2 for
bad arguments. SIGINT and SIGTERM are passed on to CMD, and the server stops once CMD has
ended. The server logs only its errors, on stderr. --db and --port do not apply.
`;

/**
 * The serve flags that make no sense here, each with the reason: the store is memory that ends
 * with CMD, the port is whichever is free (CMD learns it from MGMT_URL), and a memory store has
 * no kept token to rotate.
 */
const EXCLUDED = {
  db: "the store is in memory and ends with the command",
  port: "the server takes a free port, which the command finds in MGMT_URL",
  "new-token": "an in-memory store keeps no token to rotate",
} as const;

/**
 * Checks the arguments of an `--ephemeral` run: a command after `--`, and none of the excluded
 * flags. What remains (the serve flags without `--ephemeral`) goes to `parseServeArgs`.
 */
export function parseEphemeralArgs(args: readonly string[]): FlagParse<{ serveArgs: string[]; command: string[] }> {
  const { flags, command } = splitCommand(args);
  const serveArgs = flags.filter((a) => a !== EPHEMERAL_FLAG);
  // Only to see which flags are there; the values are checked by parseServeArgs.
  const seen = parseFlags(serveArgs, {
    ...Object.fromEntries(Object.keys(EXCLUDED).map((name) => [name, { type: name === "new-token" ? "boolean" : "string" }])),
    host: { type: "string" },
    fixtures: { type: "string" },
    "no-default-fixtures": { type: "boolean" },
    "rate-limit": { type: "string" },
    "request-timeout": { type: "string" },
    "headers-timeout": { type: "string" },
  } as const);
  if (!("values" in seen)) return seen;
  for (const [name, reason] of Object.entries(EXCLUDED)) {
    if ((seen.values as Record<string, unknown>)[name] !== undefined) return { problem: `option '--${name}' cannot be used with --ephemeral: ${reason}` };
  }
  if (command === undefined || command.length === 0)
    return { problem: "--ephemeral needs a command to run after '--', as in: mgmt serve --ephemeral -- tofu plan" };
  return { values: { serveArgs, command }, positionals: [] };
}

/** The server's errors on stderr; its per-request lines would bury the command's own output. */
const errorsOnly: Logger = { info: () => {}, error: lineLogger((line) => process.stderr.write(line)).error };

export type StartOptions = Omit<Parameters<typeof startServer>[0], "db" | "port" | "logger">;

/** Runs CMD against a new in-memory server and resolves with mgmt's exit status (see runWrapped). */
export async function runEphemeral(command: string[], options: StartOptions): Promise<number> {
  let server: RunningServer;
  try {
    server = await startServer({ ...options, db: ":memory:", port: 0, logger: errorsOnly });
  } catch (err) {
    process.stderr.write(`mgmt serve: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.serverFailed;
  }
  try {
    return await runWrapped("mgmt serve", command, { ...process.env, MGMT_URL: server.url, MGMT_TOKEN: server.token ?? "" });
  } finally {
    try {
      await server.close();
    } catch (err) {
      process.stderr.write(`mgmt serve: error while stopping: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
}
