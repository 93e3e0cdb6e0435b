/**
 * `mgmt install-provider [--dir DIR | --print-mirror]`: installs the provider package (the
 * filesystem mirror beside this bundle: dist/mirror in a checkout or in the installed
 * @mgmt/provider) as a filesystem mirror. The default is ~/.terraform.d/plugins, a directory both
 * Terraform and OpenTofu search without any CLI configuration; for another directory it prints
 * the `provider_installation` block that points the engines at it. `--print-mirror` copies
 * nothing and prints the mirror's own path, for a CLI configuration or `providers lock -fs-mirror`.
 */
import { cpSync, existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../provider/identity";
import { parseCommand } from "./args";

const USAGE = `usage: mgmt install-provider [--dir DIR | --print-mirror]

Installs terraform-provider-mgmt ${PROVIDER_VERSION} as a local provider mirror, beside any other
version already there (a version constraint in the configuration picks among them).
  --dir DIR       where (default ~/.terraform.d/plugins, which Terraform and OpenTofu search by themselves)
  --print-mirror  install nothing; print the path of the mirror this command carries, for a
                  CLI configuration's filesystem_mirror or 'providers lock -fs-mirror=PATH'
  -h, --help      show this help

The provider is a POSIX sh launcher running node, for linux and darwin (amd64 and arm64);
there is none for Windows (use WSL).
`;

/** Why there is no provider package for Windows; printed instead of installing one there. */
export const WINDOWS_REFUSAL =
  "the provider's launcher is a POSIX sh script, which Terraform and OpenTofu cannot start on Windows, so there is no windows package; run the engines under WSL (a Linux) instead";

export async function runInstallProvider(args: string[]): Promise<number> {
  const parsed = parseCommand("install-provider", USAGE, args, { dir: { type: "string" }, "print-mirror": { type: "boolean" } });
  if ("exit" in parsed) return parsed.exit;
  if (parsed.values.dir !== undefined && parsed.values["print-mirror"]) {
    process.stderr.write(`mgmt install-provider: options '--dir' and '--print-mirror' exclude each other\n${USAGE}`);
    return 2;
  }
  if (process.platform === "win32") {
    process.stderr.write(`mgmt install-provider: ${WINDOWS_REFUSAL}\n`);
    return 1;
  }
  const built = join(__dirname, "mirror");
  if (!existsSync(join(built, PROVIDER_SOURCE))) {
    process.stderr.write(`mgmt install-provider: no provider package at ${built}; run npm run build first\n`);
    return 1;
  }
  if (parsed.values["print-mirror"]) {
    process.stdout.write(`${built}\n`);
    return 0;
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
