/**
 * Argument parsing the subcommands share, on node:util's parseArgs: `--help` prints the usage
 * and exits 0; an unknown flag or a stray argument exits 2 naming it (1 for the report commands,
 * whose 2 means "changes found").
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { DEFAULT_MAX_CHARS } from "../report/truncate";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>["values"];

export type Parsed<V> = { readonly values: V; readonly positionals: string[] } | { readonly exit: number };

/** What the arguments ask for, printing nothing: the values, the usage, or a problem naming the flag or argument. */
export type FlagParse<V> = { readonly values: V; readonly positionals: string[] } | { readonly help: true } | { readonly problem: string };

const asksForHelp = (values: object): boolean => "help" in values && values.help === true;

export function parseFlags<O extends Options>(args: string[], options: O, maxPositionals = 0): FlagParse<Values<O>> {
  let parsed;
  try {
    // Typed by the caller's options: `--help` is parsed too, but answered here and never among the values.
    parsed = parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>({
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    return { problem: err instanceof Error ? err.message.split("\n")[0]! : String(err) };
  }
  if (asksForHelp(parsed.values)) return { help: true };
  if (parsed.positionals.length > maxPositionals) return { problem: `unexpected argument '${parsed.positionals[maxPositionals]}'` };
  return { values: parsed.values, positionals: parsed.positionals };
}

/** `parseFlags`, then `settle`. */
export function parseCommand<O extends Options>(
  command: string,
  usage: string,
  args: string[],
  options: O,
  { maxPositionals = 0, usageExit = 2 }: { readonly maxPositionals?: number; readonly usageExit?: number } = {},
): Parsed<Values<O>> {
  return settle(command, usage, parseFlags(args, options, maxPositionals), usageExit);
}

/** Prints what a parse asks for: the usage on stdout for --help (exit 0), or the problem and the usage on stderr. */
export function settle<V>(command: string, usage: string, parsed: FlagParse<V>, usageExit = 2): Parsed<V> {
  if ("help" in parsed) {
    process.stdout.write(usage);
    return { exit: 0 };
  }
  if ("problem" in parsed) {
    process.stderr.write(`mgmt ${command}: ${parsed.problem}\n${usage}`);
    return { exit: usageExit };
  }
  return parsed;
}

/** The options both report commands take, and their checks: the format and the markdown budget. */
export const REPORT_OPTIONS = {
  format: { type: "string", default: "markdown" },
  title: { type: "string" },
  "max-chars": { type: "string", default: String(DEFAULT_MAX_CHARS) },
} as const;

export function reportSettings(values: { format: string; "max-chars": string }): { format: "markdown" | "json"; maxChars: number } | { problem: string } {
  const { format } = values;
  if (format !== "markdown" && format !== "json") return { problem: `--format must be markdown or json, not '${format}'` };
  const maxChars = Number(values["max-chars"]);
  if (!Number.isSafeInteger(maxChars) || maxChars < 200) return { problem: `--max-chars must be an integer of at least 200, not '${values["max-chars"]}'` };
  return { format, maxChars };
}
