/**
 * `mgmt plan-report`: a pull-request comment or a JSON summary from `show -json PLANFILE`. The I/O
 * and exit codes live here; everything it prints is made by the pure modules in src/report.
 */
import { readFileSync } from "node:fs";
import { renderPolicyMarkdown } from "../policy/markdown";
import { PolicyJsonError, parsePolicyJson, policyResultFromJson } from "../policy/read-json";
import type { PolicyJson } from "../policy/json";
import { parseEngineLog } from "../report/engine-log";
import { plain } from "../report/md";
import { planReportJson, type PlanReportJson } from "../report/json";
import { nonRotations, reviewDifferences } from "../report/reviewed";
import { detailedEntries, lineCount, renderMarkdown } from "../report/markdown";
import { parsePlanJson, PlanFormatError } from "../report/plan-model";
import { summarize, type PlanSummary } from "../report/summary";
import { DEFAULT_MAX_CHARS, fit } from "../report/truncate";
import { REPORT_OPTIONS, parseCommand, reportSettings } from "./args";

export const PLAN_REPORT_USAGE = `usage: mgmt plan-report [--plan FILE|-] [--log FILE] [--format markdown|json] [--title TEXT]
                        [--policy FILE] [--synth-policy FILE] [--reviewed FILE] [--rotations-only]
                        [--max-chars N] [--detailed-exitcode]

Reads the JSON of 'terraform show -json PLANFILE' or 'tofu show -json PLANFILE' and
prints a report of it on stdout. Sensitive values print as (sensitive), values known
only after apply as (known after apply); no sensitive value is ever printed.

options:
  --plan FILE           the plan JSON; - or omitted reads stdin
  --log FILE            the plan's machine-readable log, as 'plan -json -out=PLANFILE'
                        prints it (JSON lines); its warnings (the provider's among
                        them, with their resource) get a heading of their own, and
                        the JSON a "warnings" count and list; masked like values
  --format FORMAT       markdown (default): a pull-request comment with the changes
                        grouped by action, drift and output changes in folds;
                        json: counts, addresses and attribute names, never values
  --title TEXT          the comment's heading (default "Plan result")
  --policy FILE         the output of 'mgmt policy check --format json' on the same plan:
                        the comment gains its Policy section, the JSON a "policy" object
                        with its counts; the check's own exit code gates the job, this
                        command's does not change
  --synth-policy FILE   the MgmtPolicy Aspect's findings from a synth that stopped on
                        them (the file MGMT_POLICY_SYNTH_JSON names): there is no plan,
                        so the comment says so and shows them as its Policy section
                        (rule, address and construct path, what to do); --plan is not read
  --reviewed FILE       the JSON summary (--format json) of the plan review saw: when this
                        plan's actions per address differ from it, the markdown says which
                        under "Not what review saw", stderr lists them, and the exit is 3
                        (an apply job then applies nothing)
  --rotations-only      exit 3, listing them, when a change is anything but a token rotation
                        under renew_before (what a scheduled job may apply on its own)
  --max-chars N         keep the markdown under N characters by leaving out attribute
                        details, then resource lines, from the end, with a note saying
                        so (default ${DEFAULT_MAX_CHARS}; GitHub's comment limit is 65536)
  --detailed-exitcode   exit 0 when the plan has no changes, 2 when it has some
  -h, --help            show this help

exit codes: 0 done (no changes with --detailed-exitcode), 2 changes present (only with
--detailed-exitcode), 3 not what --reviewed saw, or not only rotations (--rotations-only), 1 error: unreadable input, not a plan, an unknown format_version,
or a plan the engine marked as errored.
`;

function readInput(file: string): string {
  return readFileSync(file === "-" ? 0 : file, "utf8");
}

type Values = {
  readonly plan: string;
  readonly log?: string;
  readonly policy?: string;
  readonly reviewed?: string;
  readonly "rotations-only": boolean;
  readonly "detailed-exitcode": boolean;
  readonly title?: string;
};

export async function runPlanReport(args: string[]): Promise<number> {
  const parsed = parseCommand(
    "plan-report",
    PLAN_REPORT_USAGE,
    args,
    {
      plan: { type: "string", default: "-" },
      log: { type: "string" },
      policy: { type: "string" },
      "synth-policy": { type: "string" },
      reviewed: { type: "string" },
      "rotations-only": { type: "boolean", default: false },
      ...REPORT_OPTIONS,
      "detailed-exitcode": { type: "boolean", default: false },
    },
    { usageExit: 1 },
  );
  if ("exit" in parsed) return parsed.exit;
  const { values } = parsed;
  const settings = reportSettings(values);
  if ("problem" in settings) {
    process.stderr.write(`mgmt plan-report: ${settings.problem}\n`);
    return 1;
  }

  const synthPolicy = values["synth-policy"];
  if (synthPolicy !== undefined) return synthStopped(synthPolicy, settings.format, values.title);

  const inputs = readInputs(values);
  if (inputs === undefined) return 1;
  const { policy, reviewed } = inputs;
  let summary: PlanSummary;
  try {
    const diagnostics = inputs.logText === undefined ? [] : parseEngineLog(inputs.logText);
    summary = summarize(parsePlanJson(inputs.text), { diagnostics });
  } catch (err) {
    if (!(err instanceof PlanFormatError)) throw err;
    process.stderr.write(`mgmt plan-report: ${err.message}\n`);
    return 1;
  }

  const now = planReportJson(summary);
  // Why an apply must not go ahead: the plan moved since review, or (on the schedule) it does more than rotate.
  const differences = reviewed === undefined ? [] : reviewDifferences(reviewed, now);
  const others = values["rotations-only"] ? nonRotations(now) : [];

  if (settings.format === "json") {
    const json = now;
    if (policy !== undefined) json.policy = { passed: policy.passed, ...policy.summary };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    process.stdout.write(commentMarkdown(summary, values.title, policy, refusalMarkdown(differences, others), settings.maxChars));
  }
  if (summary.errored) {
    process.stderr.write("mgmt plan-report: the engine marked this plan as errored; it is incomplete\n");
    return 1;
  }
  if (differences.length > 0 || others.length > 0) {
    const why = differences.length > 0 ? "the plan differs from the one review saw" : "the plan does more than rotate tokens";
    process.stderr.write(`mgmt plan-report: ${why}:\n${[...differences, ...others].map((d) => `  ${d}\n`).join("")}`);
    return 3;
  }
  if (values["detailed-exitcode"]) return summary.hasChanges ? 2 : 0;
  return 0;
}

interface Inputs {
  readonly text: string;
  readonly logText?: string;
  readonly policy?: PolicyJson;
  readonly reviewed?: PlanReportJson;
}

/** The plan's text and the files beside it, or undefined after saying on stderr what could not be read. */
function readInputs(values: Values): Inputs | undefined {
  /** A file's text (stdin for `-`), or undefined after saying why it cannot be read; only one input may be stdin. */
  const read = (file: string, what: string, option?: string): string | undefined => {
    if (option !== undefined && file === "-" && values.plan === "-") {
      process.stderr.write(`mgmt plan-report: --${option} - and the plan cannot both be read from stdin; give --plan FILE\n`);
      return undefined;
    }
    try {
      return readInput(file);
    } catch (err) {
      process.stderr.write(`mgmt plan-report: cannot read ${what}: ${err instanceof Error ? err.message : String(err)}\n`);
      return undefined;
    }
  };

  const text = read(values.plan, values.plan === "-" ? "stdin" : values.plan);
  if (text === undefined) return undefined;
  const logText = values.log === undefined ? undefined : read(values.log, `the log ${values.log}`, "log");
  if (values.log !== undefined && logText === undefined) return undefined;
  let policy: PolicyJson | undefined;
  if (values.policy !== undefined) {
    const policyText = read(values.policy, `the policy check ${values.policy}`, "policy");
    if (policyText === undefined) return undefined;
    try {
      policy = parsePolicyJson(policyText);
    } catch (err) {
      if (!(err instanceof PolicyJsonError)) throw err;
      process.stderr.write(`mgmt plan-report: --policy ${values.policy}: ${err.message}\n`);
      return undefined;
    }
  }
  let reviewed: PlanReportJson | undefined;
  if (values.reviewed !== undefined) {
    const reviewedText = read(values.reviewed, `the reviewed summary ${values.reviewed}`, "reviewed");
    if (reviewedText === undefined) return undefined;
    reviewed = reviewedSummary(reviewedText);
    if (reviewed === undefined) {
      process.stderr.write(`mgmt plan-report: --reviewed ${values.reviewed}: not the output of 'mgmt plan-report --format json'\n`);
      return undefined;
    }
  }
  return { text, ...(logText !== undefined ? { logText } : {}), ...(policy ? { policy } : {}), ...(reviewed ? { reviewed } : {}) };
}

/** The sections that say why an apply must not go ahead ("" when it may). */
function refusalMarkdown(differences: readonly string[], others: readonly string[]): string {
  return [
    ...(differences.length > 0
      ? ["## Not what review saw", "", "The plan made now differs from the one the review showed:", "", ...differences.map((d) => `- ${d}`), ""]
      : []),
    ...(others.length > 0 ? ["## Not only token rotations", "", "These changes are left to review:", "", ...others.map((d) => `- ${d}`), ""] : []),
  ].join("\n");
}

function commentMarkdown(summary: PlanSummary, title: string | undefined, policy: PolicyJson | undefined, refusal: string, maxChars: number): string {
  const heading = title !== undefined ? { title } : {};
  // Inside what fit measures, so --max-chars holds for the whole comment: the plan's details give way, never the policy.
  const policySection = policy === undefined ? "" : `\n${renderPolicyMarkdown(policyResultFromJson(policy))}`;
  return fit(
    (budget, note) => `${renderMarkdown(summary, budget, heading, note)}${policySection}${refusal === "" ? "" : `\n${refusal}`}`,
    detailedEntries(summary),
    lineCount(summary),
    maxChars,
  ).text;
}

/** What review sees when the synth stopped on the policy: no plan, and the findings that stopped it. */
function synthStopped(file: string, format: "markdown" | "json", title: string | undefined): number {
  let policy: PolicyJson;
  try {
    policy = parsePolicyJson(readInput(file));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    process.stderr.write(`mgmt plan-report: --synth-policy ${file}: ${why}\n`);
    return 1;
  }
  if (format === "json") {
    process.stdout.write(`${JSON.stringify({ synth_stopped: true, policy: { passed: policy.passed, ...policy.summary } }, null, 2)}\n`);
    return 0;
  }
  const heading = `## ${plain(title ?? "Plan result")}`;
  const why =
    ":x: **The synth stopped on the account's rules: no plan was made.** Fix what the Policy section names (or waive it in mgmt-policy.json), then push again.";
  process.stdout.write(`${heading}\n\n${why}\n\n${renderPolicyMarkdown(policyResultFromJson(policy))}\n`);
  return 0;
}

/** A JSON summary as far as the review comparison reads it (its changes' addresses and actions), or undefined. */
function reviewedSummary(text: string): PlanReportJson | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const changes = (v as { changes?: unknown } | null)?.changes;
  const fine =
    Array.isArray(changes) &&
    changes.every((c: unknown) => {
      const o = c as { address?: unknown; actions?: unknown } | null;
      return typeof o?.address === "string" && Array.isArray(o.actions) && o.actions.every((a) => typeof a === "string");
    });
  return fine ? (v as PlanReportJson) : undefined;
}
