/**
 * Argument parsing the subcommands share, on node:util's parseArgs: `--help` prints the usage
 * and exits 0; an unknown flag or a stray argument exits 2 naming it (1 for the report commands,
 * whose 2 means "changes found").
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { DEFAULT_MAX_CHARS } from "../report/truncate";

export type Parsed<V> = { readonly values: V; readonly positionals: string[] } | { readonly exit: number };

export function parseCommand<O extends NonNullable<ParseArgsConfig["options"]>>(
  command: string,
  usage: string,
  args: string[],
  options: O,
  { maxPositionals = 0, usageExit = 2 }: { readonly maxPositionals?: number; readonly usageExit?: number } = {},
): Parsed<ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>["values"]> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`mgmt ${command}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}\n${usage}`);
    return { exit: usageExit };
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return { exit: 0 };
  }
  if (parsed.positionals.length > maxPositionals) {
    process.stderr.write(`mgmt ${command}: unexpected argument '${parsed.positionals[maxPositionals]}'\n${usage}`);
    return { exit: usageExit };
  }
  return { values: parsed.values as never, positionals: parsed.positionals };
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
