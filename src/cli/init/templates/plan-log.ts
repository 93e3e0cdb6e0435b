/**
 * The plan jobs' machine-readable plan log: `plan -json` writes the engine's log as JSON lines (the
 * provider's warnings among them) to plan.log.jsonl, `show` then prints the plan for the job's log,
 * and `mgmt plan-report --log FILE` puts the warnings into the comment.
 */

/**
 * Whether the jobs pass `--log` to `mgmt plan-report`. The jobs capture the log either way; the flag
 * waits for the `mgmt plan-report` that reads it (another branch): at merge, set this to true and
 * regenerate examples/ci (docs/ci.md, "The workflows"). test/report/workflows.test.ts runs every
 * `mgmt` line of the examples with --help, so it fails while the flag and the command disagree.
 */
export const PLAN_REPORT_TAKES_LOG = false;

/** ` --log FILE` for `mgmt plan-report`, once it takes it. */
export const planReportLog = (file: string): string => (PLAN_REPORT_TAKES_LOG ? ` --log ${file}` : "");

/**
 * A shell line that prints the errors and warnings of a plan log as text: with `-json` the engine
 * prints its diagnostics only into the log, and a failed plan's job log should say why.
 */
export const printPlanDiagnostics = (file: string): string =>
  `node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\\n")) { let m; try { m = JSON.parse(l); } catch { continue; } if (m.diagnostic) console.error(m["@message"] + (m.diagnostic.detail ? "\\n" + m.diagnostic.detail : "") + "\\n"); }' ${file}`;
