/**
 * The plan as a pull-request comment: title, one summary line and the destroy warning in the open,
 * everything else in folds. How much detail goes in is the caller's budget (see ./truncate).
 */
import { code, count, entryLines, fold, plain, value } from "./md";
import { GROUPS, type Group, type PlanSummary, type ResourceEntry } from "./summary";
import { FULL, Spending, type Budget } from "./truncate";
import type { ReportWarning } from "./warnings";

const HEADINGS: Record<Group, string> = {
  create: "Create",
  update: "Update in place",
  replace: "Replace",
  delete: "Destroy",
  import: "Import",
  move: "Move",
  forget: "Forget (removed from state, not destroyed)",
};

export function summaryLine(s: PlanSummary): string {
  const c = s.counts;
  const parts = [
    `${count(c.add)} to add`,
    `${count(c.change)} to change`,
    `${count(c.replace)} to replace`,
    `${count(c.destroy)} to destroy`,
    `${count(c.import)} to import`,
  ];
  if (c.move) parts.push(`${count(c.move)} to move`);
  if (c.forget) parts.push(`${count(c.forget)} to forget`);
  const planned = GROUPS.some((g) => s.groups[g].length > 0)
    ? `**${parts.join(", ")}**`
    : s.outputs.length > 0
      ? "**No resource changes** (outputs change)"
      : "**No changes.**";
  return c.drift ? `${planned} · ${count(c.drift)} changed outside of Terraform` : planned;
}

/** Entries in display order, so the budget cuts from the end of the comment. */
export function detailedEntries(s: PlanSummary): number {
  return GROUPS.filter((g) => g !== "import" && g !== "move").reduce((n, g) => n + s.groups[g].length, 0) + s.drift.length;
}

export function lineCount(s: PlanSummary): number {
  return GROUPS.reduce((n, g) => n + s.groups[g].length, 0) + s.drift.length + s.outputs.length;
}

/** Most warnings listed, and most characters of one warning's detail: a plan warning per resource of thousands must not crowd out the changes. */
export const MAX_WARNINGS = 20;
export const MAX_WARNING_DETAIL = 600;

/** The warnings under a heading of their own, in the open: each with its resource and place, summary and detail. */
export function warningLines(warnings: readonly ReportWarning[]): string[] {
  const shown = warnings.slice(0, MAX_WARNINGS).map((w) => {
    const where = [
      w.address !== undefined ? code(w.address) : "",
      w.filename !== undefined ? `${plain(w.filename)}${w.line !== undefined ? ` line ${w.line}` : ""}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    const detail = w.detail.length > MAX_WARNING_DETAIL ? `${w.detail.slice(0, MAX_WARNING_DETAIL)}…` : w.detail;
    return `- ${where ? `${where}: ` : ""}**${plain(w.summary)}**${detail.trim() ? `: ${plain(detail.trim())}` : ""}`;
  });
  const more = warnings.length > shown.length ? [`- … and ${count(warnings.length - shown.length)} more (see the CI log)`] : [];
  return [`### Warnings (${count(warnings.length)})`, "", ...shown, ...more, ""];
}

export interface MarkdownOptions {
  readonly title?: string;
}

export function renderMarkdown(s: PlanSummary, budget: Budget = FULL, o: MarkdownOptions = {}, truncationNote?: string): string {
  const out: string[] = [`## ${plain(o.title ?? "Plan result")}`, "", summaryLine(s), ""];
  if (s.errored) out.push("> [!CAUTION]", "> The engine reported errors while planning: this plan is incomplete.", "");
  if (s.hasDestroy) {
    const doomed = [...s.groups.delete, ...s.groups.replace];
    out.push("> [!WARNING]", `> **Destructive changes:** ${count(s.counts.destroy)} to destroy, ${count(s.counts.replace)} to replace.`);
    const shown = doomed.slice(0, 20).map((e) => code(e.address));
    out.push(`> ${shown.join(", ")}${doomed.length > shown.length ? `, and ${count(doomed.length - shown.length)} more` : ""}`, "");
  }
  if (truncationNote) out.push(`> [!NOTE]`, `> ${truncationNote}`, "");
  if (s.warnings.length > 0) out.push(...warningLines(s.warnings));

  const spend = new Spending(budget);
  const section = (summary: string, entries: readonly ResourceEntry[], withDetails: boolean, note?: string) => {
    if (entries.length === 0) return;
    const body = spend.section(entries, (e) => entryLines(e, { details: withDetails && spend.details(), ...(note ? { note } : {}) }));
    out.push(...fold(`${summary} (${count(entries.length)})`, body));
  };
  for (const g of GROUPS) section(HEADINGS[g], s.groups[g], g !== "import" && g !== "move");
  section("Changed outside of Terraform", s.drift, true);
  if (s.outputs.length) {
    const body = spend.section(s.outputs, (o) => [
      o.before === undefined
        ? `- ${code(o.name)}: ${value(o.after ?? "null")} (new)`
        : o.after === undefined
          ? `- ${code(o.name)}: ~~${value(o.before)}~~ (removed)`
          : `- ${code(o.name)}: ${value(o.before)} → ${value(o.after)}`,
    ]);
    out.push(...fold(`Outputs (${count(s.outputs.length)})`, body));
  }
  return `${out.join("\n").replace(/\n+$/, "")}\n`;
}
