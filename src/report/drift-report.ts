/**
 * The drift report: managed objects whose live state left the recorded one (or vanished), and, when
 * asked, live objects no state holds. Markdown for an issue body, JSON for machines.
 */
import { driftEntryJson, REPORT_FORMAT_VERSION } from "./json";
import { Spending, leftOut, type Budget } from "./truncate";
import { code, count, entryLines, fold, plain } from "./md";
import type { ResourceEntry } from "./summary";
import type { UnmanagedResult } from "./unmanaged";

export interface DriftReport {
  readonly drift: readonly ResourceEntry[];
  /** Absent when `--unmanaged` was not asked for. */
  readonly unmanaged?: UnmanagedResult;
}

export const isDeleted = (e: ResourceEntry) => e.actions.includes("delete") && !e.actions.includes("create");

export function driftFound(r: DriftReport): boolean {
  return r.drift.length > 0 || (r.unmanaged?.unmanaged.length ?? 0) > 0;
}

export function driftCounts(r: DriftReport) {
  const deleted = r.drift.filter(isDeleted).length;
  return { drifted: r.drift.length - deleted, deleted, unmanaged: r.unmanaged?.unmanaged.length ?? 0 };
}

export function driftSummaryLine(r: DriftReport): string {
  const c = driftCounts(r);
  if (!driftFound(r)) return r.unmanaged ? "**No drift** and no unmanaged objects." : "**No drift.**";
  const parts = [`${count(c.drifted)} changed outside of Terraform`, `${count(c.deleted)} deleted outside of Terraform`];
  if (r.unmanaged) parts.push(`${count(c.unmanaged)} unmanaged`);
  return `**${parts.join(", ")}**`;
}

const ROLE_TEXT = { bootstrap: "the token `mgmt serve` minted at start", acting: "the token this run acts with" } as const;

export function driftLineCount(r: DriftReport): number {
  return r.drift.length + (r.unmanaged?.unmanaged.length ?? 0);
}

export function renderDriftMarkdown(r: DriftReport, budget: Budget, title = "Drift report", truncationNote?: string): string {
  const out = [`## ${plain(title)}`, "", driftSummaryLine(r), ""];
  if (truncationNote) out.push("> [!NOTE]", `> ${truncationNote}`, "");
  const spend = new Spending(budget);
  const changed = r.drift.filter((e) => !isDeleted(e));
  const deleted = r.drift.filter(isDeleted);
  const section = (heading: string, entries: readonly ResourceEntry[]) => {
    if (!entries.length) return;
    out.push(
      ...fold(
        `${heading} (${count(entries.length)})`,
        spend.section(entries, (e) => entryLines(e, { details: spend.details() })),
        true,
      ),
    );
  };
  section("Changed outside of Terraform, state → live", changed);
  section("Deleted outside of Terraform", deleted);
  const u = r.unmanaged;
  if (u) {
    const body: string[] = [];
    let hidden = 0;
    for (const type of u.types) {
      const mine = u.unmanaged.filter((o) => o.type === type);
      if (!mine.length) continue;
      body.push(`**${code(type)}**`, "");
      for (const o of mine) {
        if (!spend.line()) {
          hidden++;
          continue;
        }
        body.push(`- id ${code(o.importId)} ${code(JSON.stringify(o.label))} → import as ${code(o.to)}`);
      }
      body.push("");
    }
    if (hidden) body.push(leftOut(hidden), "");
    if (u.unmanaged.length)
      body.push(
        "`mgmt drift --unmanaged --import-out imports.tf` writes `import {}` blocks for these; `plan -generate-config-out=generated.tf` then writes their configuration.",
      );
    else body.push(`None among ${u.types.map((t) => code(t)).join(", ")}.`);
    out.push(...fold(`Not managed by any state (${count(u.unmanaged.length)})`, body, true));
    if (u.known.length) {
      out.push("Expected and not counted:", "");
      for (const k of u.known) out.push(`- ${code(k.type)} id ${code(k.importId)} ${code(JSON.stringify(k.label))}: ${ROLE_TEXT[k.role]}`);
      out.push("");
    }
  }
  return `${out.join("\n").replace(/\n+$/, "")}\n`;
}

export interface DriftReportJson {
  format_version: number;
  summary: { drifted: number; deleted: number; unmanaged: number };
  drift: { address: string; type: string; actions: string[]; attributes: string[] }[];
  unmanaged?: { type: string; id: string; label: string; to: string }[];
  known?: { type: string; id: string; label: string; role: string }[];
  has_drift: boolean;
}

export function driftReportJson(r: DriftReport): DriftReportJson {
  return {
    format_version: REPORT_FORMAT_VERSION,
    summary: driftCounts(r),
    drift: r.drift.map(driftEntryJson),
    ...(r.unmanaged
      ? {
          unmanaged: r.unmanaged.unmanaged.map((o) => ({ type: o.type, id: o.importId, label: o.label, to: o.to })),
          known: r.unmanaged.known.map((k) => ({ type: k.type, id: k.importId, label: k.label, role: k.role })),
        }
      : {}),
    has_drift: driftFound(r),
  };
}
