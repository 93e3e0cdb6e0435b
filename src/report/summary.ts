/**
 * A plan reduced to what a reviewer reads: changes grouped by action, drift kept apart and filtered to
 * what matters, output changes, and the counts. Values in it are already masked (see ./mask).
 */
import { attributeDiffs, overlaps, type AttributeDiff } from "./diff";
import { shownValue } from "./mask";
import type { AttributePath, Change, Plan, ResourceChange } from "./plan-model";
import { driftOf, revertsDrift } from "./revert";
import { rotationOf } from "./rotation";
import type { EngineDiagnostic } from "./engine-log";
import { reportWarnings, type ReportWarning } from "./warnings";

export const GROUPS = ["create", "update", "replace", "delete", "import", "move", "forget"] as const;
export type Group = (typeof GROUPS)[number];

export interface ResourceEntry {
  readonly address: string;
  readonly type: string;
  readonly actions: readonly string[];
  readonly previousAddress?: string;
  readonly importId?: string;
  readonly deposed?: string;
  readonly actionReason?: string;
  /** A token rotated under renew_before (new token, then the old revoked): why now, e.g. "expires 2026-12-05, inside renew_before 168h". */
  readonly rotation?: string;
  readonly attributes: readonly AttributeDiff[];
}

export interface OutputEntry {
  readonly name: string;
  readonly actions: readonly string[];
  readonly before: string | undefined;
  readonly after: string | undefined;
}

export interface Counts {
  add: number;
  change: number;
  replace: number;
  destroy: number;
  import: number;
  move: number;
  forget: number;
  drift: number;
}

export interface PlanSummary {
  readonly errored: boolean;
  readonly counts: Counts;
  /** Every group, in display order; an entry may sit in two (an import that also updates). */
  readonly groups: Readonly<Record<Group, readonly ResourceEntry[]>>;
  readonly drift: readonly ResourceEntry[];
  readonly outputs: readonly OutputEntry[];
  /** The engine's warnings from the plan's log (`--log`), masked; empty without a log. */
  readonly warnings: readonly ReportWarning[];
  readonly hasDestroy: boolean;
  readonly hasChanges: boolean;
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The main group of an action list; undefined for no-op and read. */
export function actionGroup(actions: readonly string[]): Group | undefined {
  if (same(actions, ["create"])) return "create";
  if (same(actions, ["update"])) return "update";
  if (same(actions, ["delete"])) return "delete";
  if (same(actions, ["forget"])) return "forget";
  if (actions.includes("delete") && actions.includes("create")) return "replace";
  return undefined;
}

function entryOf(rc: ResourceChange, attributes: readonly AttributeDiff[] = attributeDiffs(rc.change)): ResourceEntry {
  return {
    address: rc.address,
    type: rc.type,
    actions: rc.change.actions,
    attributes,
    ...(rc.previous_address !== undefined && rc.previous_address !== rc.address ? { previousAddress: rc.previous_address } : {}),
    ...(rc.change.importing ? { importId: rc.change.importing.id ?? "" } : {}),
    ...(rc.deposed !== undefined ? { deposed: rc.deposed } : {}),
    ...(rc.action_reason !== undefined ? { actionReason: rc.action_reason } : {}),
    ...rotationField(rc),
  };
}

function rotationField(rc: ResourceChange): { rotation?: string } {
  const rotation = rotationOf(rc);
  return rotation === undefined ? {} : { rotation };
}

export interface DriftOptions {
  /**
   * `relevant`: only drift in attributes that feed planned changes (`relevant_attributes`), as the
   * engines show it in a normal plan. `all`: every drifted attribute, as in a refresh-only plan.
   */
  readonly drift?: "relevant" | "all";
  /** The diagnostics of the plan's machine-readable log, whose warnings the report shows. */
  readonly diagnostics?: readonly EngineDiagnostic[];
}

/** The attribute changes of a planned change, each marked where it only sets back drift. */
function plannedDiffs(rc: ResourceChange, drift: readonly ResourceChange[]): AttributeDiff[] {
  const diffs = attributeDiffs(rc.change);
  const drifted = driftOf(rc, drift);
  if (!drifted) return diffs;
  return diffs.map((d) => (revertsDrift(rc.change, drifted.change, d.path) ? { ...d, revertsDrift: true } : d));
}

/**
 * Drift entries: deletions always, updates only with attributes left after filtering. `reverted` holds,
 * per address, the paths the plan sets back: that drift is shown even where relevant_attributes omits it,
 * since the plan changes those attributes because of it.
 */
export function driftEntries(plan: Plan, mode: "relevant" | "all", reverted: ReadonlyMap<string, readonly AttributePath[]> = new Map()): ResourceEntry[] {
  const relevant = plan.relevant_attributes ?? [];
  const out: ResourceEntry[] = [];
  for (const rc of plan.resource_drift ?? []) {
    if ((rc.mode ?? "managed") !== "managed") continue;
    let attributes = attributeDiffs(rc.change);
    const deleted = rc.change.actions.includes("delete") && !rc.change.actions.includes("create");
    if (mode === "relevant" && !deleted) {
      const mine = [...relevant.filter((r) => r.resource === rc.address).map((r) => r.attribute), ...(reverted.get(rc.address) ?? [])];
      attributes = attributes.filter((a) => mine.some((p) => overlaps(p, a.path)));
    }
    if (deleted || attributes.length > 0) out.push(entryOf(rc, deleted ? [] : attributes));
  }
  return out;
}

function outputEntry(name: string, c: Change): OutputEntry {
  return {
    name,
    actions: c.actions,
    before: c.before === undefined || c.before === null ? undefined : shownValue(c.before, c.before_sensitive),
    after: c.actions.includes("delete") && !c.actions.includes("create") ? undefined : shownValue(c.after ?? null, c.after_sensitive, c.after_unknown),
  };
}

export function summarize(plan: Plan, options: DriftOptions = {}): PlanSummary {
  const groups: Record<Group, ResourceEntry[]> = { create: [], update: [], replace: [], delete: [], import: [], move: [], forget: [] };
  const reverted = new Map<string, AttributePath[]>();
  for (const rc of plan.resource_changes ?? []) {
    if ((rc.mode ?? "managed") !== "managed") continue;
    const group = actionGroup(rc.change.actions);
    const moved = rc.previous_address !== undefined && rc.previous_address !== rc.address;
    if (group === undefined && !rc.change.importing && !moved) continue;
    const attributes = plannedDiffs(rc, plan.resource_drift ?? []);
    const back = attributes.filter((a) => a.revertsDrift).map((a) => a.path);
    if (back.length > 0 && rc.deposed === undefined) reverted.set(rc.address, back);
    const entry = entryOf(rc, attributes);
    if (group) groups[group].push(entry);
    if (rc.change.importing) groups.import.push(entry);
    if (moved) groups.move.push(entry);
  }
  // A plan without resource_changes is a refresh-only plan: there, all drift is the point.
  const driftMode = options.drift ?? (plan.resource_changes === undefined ? "all" : "relevant");
  const drift = driftEntries(plan, driftMode, reverted);
  const outputs = Object.entries(plan.output_changes ?? {})
    .filter(([, c]) => !c.actions.every((a) => a === "no-op"))
    .map(([name, c]) => outputEntry(name, c))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const counts: Counts = {
    add: groups.create.length,
    change: groups.update.length,
    replace: groups.replace.length,
    destroy: groups.delete.length,
    import: groups.import.length,
    move: groups.move.length,
    forget: groups.forget.length,
    drift: drift.length,
  };
  // In a refresh-only plan the drift is the change: applying it would rewrite the state.
  const hasChanges = GROUPS.some((g) => groups[g].length > 0) || outputs.length > 0 || (driftMode === "all" && drift.length > 0);
  return {
    errored: plan.errored === true,
    counts,
    groups,
    drift,
    outputs,
    warnings: reportWarnings(plan, options.diagnostics ?? []),
    hasDestroy: counts.destroy + counts.replace > 0,
    hasChanges,
  };
}
