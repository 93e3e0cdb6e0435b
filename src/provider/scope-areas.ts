/**
 * The check that tells a user of a scope area the API does not name: the API accepts any
 * well-formed area, so a misspelt one ("acount:read_only") would otherwise give a token that can
 * do nothing.
 */
import { SCOPE_AREAS, Scopes } from "../contract/scopes";

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
  let best: string = SCOPE_AREAS[0];
  for (const known of SCOPE_AREAS) if (editDistance(area, known) < editDistance(area, best)) best = known;
  return best;
}

/** The areas of a scope text that the API does not name, each once, in order; none for `*` or text that does not parse. */
export function unknownScopeAreas(text: string): string[] {
  const parsed = Scopes.parse(text);
  return parsed.ok ? parsed.scopes.namedAreas.filter((a) => !(SCOPE_AREAS as readonly string[]).includes(a)) : [];
}
