/**
 * The plan jobs' machine-readable plan log: `plan -json` writes the engine's log as JSON lines (the
 * provider's warnings among them) to plan.log.jsonl, `show` then prints the plan for the job's log,
 * and `mgmt plan-report --log FILE` puts the warnings into the comment.
 */

/** ` --log FILE` for `mgmt plan-report`: the warnings of the plan log join the comment. */
export const planReportLog = (file: string): string => ` --log ${file}`;

/**
 * A shell line that prints the errors and warnings of a plan log as text: with `-json` the engine
 * prints its diagnostics only into the log, and a failed plan's job log should say why.
 */
export const printPlanDiagnostics = (file: string): string =>
  `node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\\n")) { let m; try { m = JSON.parse(l); } catch { continue; } if (m.diagnostic) console.error(m["@message"] + (m.diagnostic.detail ? "\\n" + m.diagnostic.detail : "") + "\\n"); }' ${file}`;
