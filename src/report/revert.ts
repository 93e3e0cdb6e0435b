/**
 * Which planned attribute changes only set back a change made outside Terraform. A plan that refreshes
 * first plans from the live value, so an out-of-band edit reads as `live → configured`, exactly like a
 * change the pull request makes; `resource_drift` tells the two apart. Raw values are compared here and
 * never returned, so nothing in this module can reach a report.
 */
import type { AttributePath, Change, ResourceChange } from "./plan-model";

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === "object" && v !== null;

/** The value at `path`, or undefined where the value has no such attribute. */
export function valueAt(value: unknown, path: AttributePath): unknown {
  let v = value;
  for (const part of path) {
    if (!isContainer(v)) return undefined;
    v = (v as Record<string | number, unknown>)[part];
  }
  return v;
}

/** Whether the engine's unknown tree marks `path` or a container above it as known only after apply. */
function unknownAt(tree: unknown, path: AttributePath): boolean {
  let t = tree;
  for (const part of path) {
    if (t === true) return true;
    if (!isContainer(t)) return false;
    t = (t as Record<string | number, unknown>)[part];
  }
  return t === true;
}

/** Structural equality of JSON values; a null and an absent attribute are the same to the engines. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (isContainer(a) && isContainer(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

/**
 * True when the planned change at `path` moves the attribute from the value found live (the drift's
 * `after`, which is the plan's `before`) back to the value in the prior state (the drift's `before`).
 */
export function revertsDrift(change: Change, drift: Change, path: AttributePath): boolean {
  if (unknownAt(change.after_unknown, path)) return false;
  const live = valueAt(drift.after, path);
  const recorded = valueAt(drift.before, path);
  if (sameValue(live, recorded)) return false;
  return sameValue(valueAt(change.before, path), live) && sameValue(valueAt(change.after, path), recorded);
}

/** The drift entry of the same object: same address and, for a deposed object, the same deposed key. */
export function driftOf(rc: ResourceChange, drift: readonly ResourceChange[]): ResourceChange | undefined {
  return drift.find((d) => d.address === rc.address && d.deposed === rc.deposed && d.change.actions.includes("update"));
}
