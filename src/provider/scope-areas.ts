/**
 * The OAuth scope areas the API names (its contract: `account`, `events`, `child_account`), and
 * the check that tells a user of an area it does not: the API accepts any well-formed area, so a
 * misspelt one ("acount:read_only") would otherwise give a token that can do nothing.
 */
export const KNOWN_SCOPE_AREAS = ["account", "child_account", "events"] as const;

/** Levenshtein distance: insertions, deletions and substitutions, each 1. */
export function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

/** The known area nearest to `area` (the first of equals, in the list's order). */
export function closestArea(area: string): string {
  let best: string = KNOWN_SCOPE_AREAS[0];
  for (const known of KNOWN_SCOPE_AREAS) if (editDistance(area, known) < editDistance(area, best)) best = known;
  return best;
}

/** The areas of a scope text that the API does not name, each once, in order; none for `*` or text that does not parse. */
export function unknownScopeAreas(text: string): string[] {
  const areas = text
    .trim()
    .split(/\s+/)
    .map((item) => /^([a-z][a-z_]*):(read_only|read_write)$/.exec(item)?.[1])
    .filter((a): a is string => a !== undefined && !(KNOWN_SCOPE_AREAS as readonly string[]).includes(a));
  return [...new Set(areas)];
}
