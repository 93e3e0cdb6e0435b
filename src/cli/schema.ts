/** `mgmt schema`: the provider schema in the `terraform providers schema -json` format. */
import { providerSchemaJson } from "../provider/schema-json";

export async function runSchema(args: string[]): Promise<number> {
  if (args.length > 0) {
    process.stderr.write("usage: mgmt schema\n");
    return 2;
  }
  process.stdout.write(`${JSON.stringify(providerSchemaJson(), null, 2)}\n`);
  return 0;
}
