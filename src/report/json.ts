/**
 * The machine-readable summaries. They carry addresses, attribute names and ids, never a value, so
 * they are safe to store as CI artifacts or post anywhere.
 */
import type { PlanSummary, ResourceEntry } from "./summary";
import { GROUPS } from "./summary";

/**
 * Changes only when a field changes meaning or goes away; a field may be added within a version (as
 * `reverts_drift` was), so readers ignore fields they do not know.
 */
export const REPORT_FORMAT_VERSION = 1;

/** Top-level attribute names only: `tags[0]` and `tags[1]` are both `tags`. */
export function attributeNames(e: ResourceEntry): string[] {
  return [...new Set(e.attributes.map((a) => String(a.path[0] ?? "")).filter((n) => n !== ""))].sort();
}

/** One drifted object in the JSON summaries: its address and the names of what changed. */
export const driftEntryJson = (e: ResourceEntry) => ({ address: e.address, type: e.type, actions: [...e.actions], attributes: attributeNames(e) });

export interface PlanReportJson {
  format_version: number;
  summary: { add: number; change: number; replace: number; destroy: number; import: number; move: number; drift: number };
  changes: {
    address: string;
    type: string;
    actions: string[];
    attributes: string[];
    previous_address?: string;
    import_id?: string;
    /** Of `attributes`, those whose planned change only sets back a change made outside Terraform, in every part. */
    reverts_drift?: string[];
    /** A token rotated under renew_before, and why now ("expires 2026-12-05, inside renew_before 168h"): what the scheduled rotation job applies on its own. */
    rotation?: string;
  }[];
  drift: { address: string; type: string; actions: string[]; attributes: string[] }[];
  /** The engine's warnings from the plan's log (with `--log`), masked as the comment shows them. */
  warnings: { count: number; items: { summary: string; detail: string; address?: string; filename?: string; line?: number }[] };
  has_destroy: boolean;
  /** With `--policy`: the counts of `mgmt policy check --format json`, as that check found them (its `summary` and `passed`). */
  policy?: PolicyCounts;
}

/** Written out here, not imported: report renders plans and knows nothing of the rules (eslint.config.mjs, layers). */
export interface PolicyCounts {
  passed: boolean;
  checked: number;
  errors: number;
  warnings: number;
  waived: number;
  waivers_expired: number;
  not_checkable: number;
  stale_waivers: number;
}

export function planReportJson(s: PlanSummary): PlanReportJson {
  const seen = new Set<ResourceEntry>();
  const changes: PlanReportJson["changes"] = [];
  for (const g of GROUPS) {
    for (const e of s.groups[g]) {
      if (seen.has(e)) continue;
      seen.add(e);
      const reverts = attributeNames(e).filter((n) => e.attributes.every((a) => String(a.path[0]) !== n || a.revertsDrift));
      changes.push({
        address: e.address,
        type: e.type,
        actions: [...e.actions],
        attributes: attributeNames(e),
        ...(e.previousAddress !== undefined ? { previous_address: e.previousAddress } : {}),
        ...(e.importId !== undefined ? { import_id: e.importId } : {}),
        ...(reverts.length > 0 ? { reverts_drift: reverts } : {}),
        ...(e.rotation !== undefined ? { rotation: e.rotation } : {}),
      });
    }
  }
  const { add, change, replace, destroy, import: imports, move, drift } = s.counts;
  return {
    format_version: REPORT_FORMAT_VERSION,
    summary: { add, change, replace, destroy, import: imports, move, drift },
    changes,
    drift: s.drift.map(driftEntryJson),
    warnings: { count: s.warnings.length, items: s.warnings.map((w) => ({ ...w })) },
    has_destroy: s.hasDestroy,
  };
}
