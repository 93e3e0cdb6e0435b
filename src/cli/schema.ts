/** `mgmt schema`: the provider schema in the `terraform providers schema -json` format. */
import { providerSchemaJson } from "../provider/schema-json";
import { parseCommand } from "./args";

const USAGE = "usage: mgmt schema\n\nPrints the provider schema as 'terraform providers schema -json' does (what the binding generator reads).\n";

export async function runSchema(args: string[]): Promise<number> {
  const parsed = parseCommand("schema", USAGE, args, {});
  if ("exit" in parsed) return parsed.exit;
  process.stdout.write(`${JSON.stringify(providerSchemaJson(), null, 2)}\n`);
  return 0;
}
