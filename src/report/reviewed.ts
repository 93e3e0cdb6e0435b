/**
 * What an apply may go ahead with: the plan made at merge time against the one review saw (their actions per
 * address, as the JSON summaries hold them), and the scheduled rotation's test that a plan only rotates tokens.
 * Pure: the summaries in, the reasons out; the CI jobs decide what to do with them.
 */
import type { PlanReportJson } from "./json";

type Changes = Pick<PlanReportJson, "changes">;

const actionsOf = (s: Changes): Map<string, string> => new Map(s.changes.map((c) => [c.address, c.actions.join(", ")]));

/** One line per address whose actions differ between the reviewed plan and this one; empty when they agree. */
export function reviewDifferences(reviewed: Changes, now: Changes): string[] {
  const before = actionsOf(reviewed);
  const after = actionsOf(now);
  const lines: string[] = [];
  for (const address of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const was = before.get(address);
    const is = after.get(address);
    if (was === is) continue;
    if (was === undefined) lines.push(`\`${address}\`: not in the reviewed plan, now ${is}`);
    else if (is === undefined) lines.push(`\`${address}\`: reviewed ${was}, not in the plan now`);
    else lines.push(`\`${address}\`: reviewed ${was}, now ${is}`);
  }
  return lines;
}

/** The changes of a plan that are not token rotations under renew_before; empty when the plan only rotates (or changes nothing). */
export function nonRotations(now: Changes): string[] {
  return now.changes.filter((c) => c.rotation === undefined).map((c) => `\`${c.address}\`: ${c.actions.join(", ")}`);
}
