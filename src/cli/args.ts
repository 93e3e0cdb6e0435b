/**
 * Argument parsing the subcommands share, on node:util's parseArgs: `--help` prints the usage
 * and exits 0; an unknown flag or a stray argument exits 2 naming it.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

export type Parsed<V> = { readonly values: V; readonly positionals: string[] } | { readonly exit: number };

export function parseCommand<O extends NonNullable<ParseArgsConfig["options"]>>(
  command: string,
  usage: string,
  args: string[],
  options: O,
  maxPositionals = 0,
): Parsed<ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>["values"]> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`mgmt ${command}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}\n${usage}`);
    return { exit: 2 };
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return { exit: 0 };
  }
  if (parsed.positionals.length > maxPositionals) {
    process.stderr.write(`mgmt ${command}: unexpected argument '${parsed.positionals[maxPositionals]}'\n${usage}`);
    return { exit: 2 };
  }
  return { values: parsed.values as never, positionals: parsed.positionals };
}
