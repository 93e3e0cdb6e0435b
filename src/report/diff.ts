/** Which attributes of one change differ, as masked `before → after` pairs. */
import { formatPath, leaves, type Leaf } from "./mask";
import type { AttributePath, Change } from "./plan-model";

export interface AttributeDiff {
  readonly path: AttributePath;
  /** Display path: `label`, `tags[0]`. */
  readonly name: string;
  /** Masked display value, or undefined where the attribute does not exist on that side. */
  readonly before: string | undefined;
  readonly after: string | undefined;
  readonly forcesReplacement: boolean;
  /** The planned change only sets back a change made outside Terraform (see ./revert). */
  readonly revertsDrift?: true;
}

const key = (path: AttributePath) => JSON.stringify(path);

/** `a` equals `b` or lies under it (`["tags", 0]` under `["tags"]`), or the reverse. */
export function overlaps(a: AttributePath, b: AttributePath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function attributeDiffs(change: Change): AttributeDiff[] {
  const hasBefore = change.before !== null && change.before !== undefined;
  const hasAfter = (change.after !== null && change.after !== undefined) || change.after_unknown === true;
  const before = hasBefore ? leaves(change.before, change.before_sensitive) : [];
  const after = hasAfter ? leaves(change.after ?? null, change.after_sensitive, change.after_unknown) : [];
  const byPath = new Map<string, { path: AttributePath; before?: Leaf; after?: Leaf }>();
  for (const l of before) byPath.set(key(l.path), { path: l.path, before: l });
  for (const l of after) {
    const entry = byPath.get(key(l.path));
    if (entry) entry.after = l;
    else byPath.set(key(l.path), { path: l.path, after: l });
  }
  const replacePaths = change.replace_paths ?? [];
  const diffs: AttributeDiff[] = [];
  for (const { path, before: b, after: a } of byPath.values()) {
    if (b && a && b.identity === a.identity) continue;
    // A null that appears or disappears on one side only is no change worth a line.
    if (!b && a?.shown === "null") continue;
    if (!a && b?.shown === "null") continue;
    diffs.push({ path, name: formatPath(path), before: b?.shown, after: a?.shown, forcesReplacement: replacePaths.some((p) => overlaps(p, path)) });
  }
  return diffs.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}
