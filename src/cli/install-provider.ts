/**
 * `mgmt install-provider [--dir DIR]`: installs the provider package the build wrote
 * (dist/mirror) as a filesystem mirror. The default is ~/.terraform.d/plugins, a directory both
 * Terraform and OpenTofu search without any CLI configuration; for another directory it prints
 * the `provider_installation` block that points the engines at it.
 */
import { cpSync, existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../provider/identity";
import { parseCommand } from "./args";

const USAGE = `usage: mgmt install-provider [--dir DIR]

Installs terraform-provider-mgmt ${PROVIDER_VERSION} as a local provider mirror.
  --dir DIR   where (default ~/.terraform.d/plugins, which Terraform and OpenTofu search by themselves)
  -h, --help  show this help
`;

export async function runInstallProvider(args: string[]): Promise<number> {
  const parsed = parseCommand("install-provider", USAGE, args, { dir: { type: "string" } });
  if ("exit" in parsed) return parsed.exit;
  const built = join(__dirname, "mirror");
  if (!existsSync(join(built, PROVIDER_SOURCE))) {
    process.stderr.write(`mgmt install-provider: no provider package at ${built}; run npm run build first\n`);
    return 1;
  }
  const implied = join(homedir(), ".terraform.d", "plugins");
  const dir = resolve(parsed.values.dir ?? implied);
  cpSync(built, dir, { recursive: true });
  process.stdout.write(`installed ${PROVIDER_SOURCE} ${PROVIDER_VERSION} into ${dir}\n`);
  if (dir !== implied) {
    const [host] = PROVIDER_SOURCE.split("/");
    process.stdout.write(
      `\nPoint the engines at it in a CLI configuration file (TF_CLI_CONFIG_FILE, ~/.terraformrc or ~/.tofurc):\n\n` +
        `provider_installation {\n  filesystem_mirror {\n    path    = "${dir}"\n    include = ["${host}/*/*"]\n  }\n  direct {\n    exclude = ["${host}/*/*"]\n  }\n}\n`,
    );
  }
  return 0;
}
