/**
 * `mgmt policy check`: the account's rules (src/policy) on a plan. The I/O and the exit codes live here: 0 when
 * nothing at error severity is violated, 2 when something is, 1 when the plan or the configuration cannot be read.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve, sep } from "node:path";
import { checkPolicy } from "../policy/check";
import { DEFAULT_CONFIG, DEFAULT_CONFIG_FILE, PolicyConfigError, parsePolicyConfig, type PolicyConfig } from "../policy/config";
import { policyJson } from "../policy/json";
import { renderPolicyMarkdown } from "../policy/markdown";
import { planSubjectsFromJson } from "../policy/plan-subjects";
import { policySarif, type SarifSource } from "../policy/sarif";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../provider/identity";
import { PlanFormatError } from "../report/plan-model";
import { parseCommand } from "./args";

export const POLICY_USAGE = `usage: mgmt policy check [--plan FILE|-] [--config FILE] [--format md|json|sarif] [--title TEXT]
                         [--source FILE]

Checks the planned values of 'terraform show -json PLANFILE' or 'tofu show -json PLANFILE'
against the account's rules: token-expiry, token-scopes, token-renewal, oauth-redirect-https,
oauth-public, ssh-key-strength, label-pattern (docs/guides/policy.md).

options:
  --plan FILE       the plan JSON; - or omitted reads stdin
  --config FILE     the rules' severities, parameters and waivers (default: ${DEFAULT_CONFIG_FILE}
                    in the current folder when present, else every rule at its default)
  --format FORMAT   md (default): a pull-request comment; json: the findings for tools
                    (and plan-report); sarif: SARIF 2.1.0 for a code-scanning upload
  --title TEXT      the comment's heading (default "Policy")
  --source FILE     with sarif: the configuration file (main.tf, cdk.tf.json) results point
                    at, on the line declaring each resource; code-scanning shows alerts there
  -h, --help        show this help

exit codes: 0 nothing at error severity is violated, 2 something is (an expired waiver
counts), 1 error: an unreadable or invalid plan or configuration, named with its line.
`;

const FORMATS = ["md", "json", "sarif"] as const;

/** docs/guides/policy.md where the registry publishes the provider's guides (host/namespace/name of its source). */
const SARIF_TOOL = (() => {
  const [host, namespace, name] = PROVIDER_SOURCE.split("/");
  return { version: PROVIDER_VERSION, docsUrl: `https://${host}/providers/${namespace}/${name}/${PROVIDER_VERSION}/docs/guides/policy` };
})();

function loadConfig(given: string | undefined): PolicyConfig {
  const file = given ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
  if (file === undefined) return DEFAULT_CONFIG;
  let text: string;
  try {
    text = readFileSync(resolve(file), "utf8");
  } catch (err) {
    throw new PolicyConfigError(file, 0, `cannot read it: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parsePolicyConfig(text, file);
}

export async function runPolicy(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "-h" || sub === "--help") {
    process.stdout.write(POLICY_USAGE);
    return 0;
  }
  if (sub !== "check") {
    process.stderr.write(`mgmt policy: ${sub === undefined ? "a subcommand is needed" : `unknown subcommand '${sub}'`}\n${POLICY_USAGE}`);
    return 1;
  }
  const parsed = parseCommand(
    "policy check",
    POLICY_USAGE,
    rest,
    {
      plan: { type: "string", default: "-" },
      config: { type: "string" },
      format: { type: "string", default: "md" },
      title: { type: "string" },
      source: { type: "string" },
    },
    { usageExit: 1 },
  );
  if ("exit" in parsed) return parsed.exit;
  const { values } = parsed;
  const format = values.format;
  if (!(FORMATS as readonly string[]).includes(format)) {
    process.stderr.write(`mgmt policy check: --format must be md, json or sarif, not '${format}'\n`);
    return 1;
  }

  let config: PolicyConfig;
  try {
    config = loadConfig(values.config);
  } catch (err) {
    if (!(err instanceof PolicyConfigError)) throw err;
    process.stderr.write(`mgmt policy check: ${err.line > 0 ? err.message : `${err.file}: ${err.problem}`}\n`);
    return 1;
  }
  let text: string;
  try {
    text = readFileSync(values.plan === "-" ? 0 : values.plan, "utf8");
  } catch (err) {
    process.stderr.write(
      `mgmt policy check: cannot read ${values.plan === "-" ? "stdin" : values.plan}: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
  let subjects;
  try {
    subjects = planSubjectsFromJson(text).subjects;
  } catch (err) {
    if (!(err instanceof PlanFormatError)) throw err;
    process.stderr.write(`mgmt policy check: ${values.plan === "-" ? "stdin" : values.plan}: ${err.message}\n`);
    return 1;
  }

  let source: SarifSource | undefined;
  if (values.source !== undefined) {
    try {
      source = { uri: values.source.split(sep).join("/"), text: readFileSync(values.source, "utf8") };
    } catch (err) {
      process.stderr.write(`mgmt policy check: cannot read --source ${values.source}: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
  }

  const result = checkPolicy(subjects, config, new Date());
  const json = policyJson(result, config);
  if (format === "json") process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else if (format === "sarif") process.stdout.write(`${JSON.stringify(policySarif(result, config, SARIF_TOOL, source), null, 2)}\n`);
  else process.stdout.write(renderPolicyMarkdown(result, values.title ?? "Policy"));
  return json.passed ? 0 : 2;
}
