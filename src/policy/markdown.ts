/**
 * The check as a pull-request comment (`--format md`): the failures first, then the warnings, what waivers cover,
 * what the plan cannot tell yet, and waivers that cover nothing.
 */
import type { Waiver } from "./config";
import { counts, fails, type Finding, type PolicyResult } from "./check";

const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;
/**
 * A message as markdown with HTML escaped: a quoted value comes from the pull request under review and must not
 * become markup in the comment (a label of `<img src=...>`). Everywhere, not only outside code spans: a value may
 * hold a backtick and shift them, and the rules' own code spans hold no `<`, `>` or `&`.
 */
export const messageMarkdown = (message: string): string => message.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const line = (f: Finding): string => `- ${code(f.address)} **${f.rule}**: ${messageMarkdown(f.message)}`;
const waiverLine = (w: Waiver): string =>
  `- ${code(w.address)} **${w.rule}** (expires ${w.expires}${w.line > 0 ? `, line ${w.line}` : ""}): ${messageMarkdown(w.reason)}`;

function section(title: string, lines: string[], open = false): string[] {
  if (lines.length === 0) return [];
  return [`<details${open ? " open" : ""}><summary>${title} (${lines.length})</summary>`, "", ...lines, "", "</details>", ""];
}

export function renderPolicyMarkdown(result: PolicyResult, title = "Policy"): string {
  const { findings } = result;
  const errors = findings.filter(fails);
  const warnings = findings.filter((f) => counts(f) && !fails(f));
  const waived = findings.filter((f) => f.status === "waived");
  const unknown = findings.filter((f) => f.status === "not_checkable");
  const verdict = errors.length > 0 ? `**${errors.length} ${errors.length === 1 ? "violation" : "violations"} at error severity**` : "**Passed.**";
  const tally = [
    `${warnings.length} warning(s)`,
    `${waived.length} waived`,
    `${unknown.length} not checkable at plan`,
    `${result.staleWaivers.length} stale waiver(s)`,
  ];
  return [
    `## ${title}`,
    "",
    `${verdict} ${result.checked} resource(s) checked · ${tally.join(" · ")}`,
    "",
    ...section("Errors", errors.map(line), true),
    ...section("Warnings", warnings.map(line), true),
    ...section(
      "Waived",
      waived.map((f) => `${line(f)} — waived until ${f.waiver!.expires}: ${messageMarkdown(f.waiver!.reason)}`),
    ),
    ...section("Not checkable at plan", unknown.map(line)),
    ...section("Stale waivers (they match nothing; remove them)", result.staleWaivers.map(waiverLine), true),
  ].join("\n");
}
