/**
 * Fitting a rendered report under a character limit: first drop per-attribute details from the end,
 * then whole resource lines from the end, each time saying what was left out. The renderer is passed
 * in, so this knows budgets and lengths only.
 */
import { count } from "./md";

export const DEFAULT_MAX_CHARS = 65_000;

export interface Budget {
  /** Resources (in display order) that keep their per-attribute lines. */
  readonly details: number;
  /** Resource lines shown at all; the rest are counted per section. */
  readonly lines: number;
}

export const FULL: Budget = { details: Number.POSITIVE_INFINITY, lines: Number.POSITIVE_INFINITY };

/** A budget being spent by a renderer, section by section, in display order. */
export class Spending {
  #lines = 0;
  #details = 0;
  constructor(private readonly budget: Budget) {}

  /** Whether one more resource line fits. */
  line(): boolean {
    return this.#lines++ < this.budget.lines;
  }

  /** Whether the next shown resource keeps its attribute lines. */
  details(): boolean {
    return this.#details++ < this.budget.details;
  }

  /** The lines of a section's items while the budget lasts, then how many were left out. */
  section<T>(items: readonly T[], lines: (item: T) => string[]): string[] {
    const body: string[] = [];
    let hidden = 0;
    for (const item of items) {
      if (this.line()) body.push(...lines(item));
      else hidden++;
    }
    if (hidden) body.push(leftOut(hidden));
    return body;
  }
}

export const leftOut = (n: number): string => `- … and ${count(n)} more (left out for length)`;

export interface Fitted {
  readonly text: string;
  readonly detailsDropped: number;
  readonly linesDropped: number;
}

export type Render = (budget: Budget, note: string | undefined) => string;

/** The largest n in [0, max] with fits(n), given fits is true up to some point and false after. */
function largest(max: number, fits: (n: number) => boolean): number {
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function noteFor(detailsDropped: number, detailed: number, linesDropped: number, maxChars: number): string {
  const parts: string[] = [];
  if (detailsDropped) parts.push(`the attribute details of the last ${count(detailsDropped)} of ${count(detailed)} resources`);
  if (linesDropped) parts.push(`the last ${count(linesDropped)} resource lines`);
  return `**Shortened:** ${parts.join(" and ")} were left out to keep this under ${count(maxChars)} characters. The full plan is in the CI log (\`show PLANFILE\`).`;
}

/**
 * `detailed` is how many entries can carry details and `lines` how many lines exist in all; both come
 * from the same summary the renderer draws.
 */
export function fit(render: Render, detailed: number, lines: number, maxChars: number): Fitted {
  const full = render({ details: detailed, lines }, undefined);
  if (full.length <= maxChars) return { text: full, detailsDropped: 0, linesDropped: 0 };

  const attempt = (details: number, shown: number) => render({ details, lines: shown }, noteFor(detailed - details, detailed, lines - shown, maxChars));
  let details = largest(detailed, (n) => attempt(n, lines).length <= maxChars);
  let shown = lines;
  if (attempt(details, shown).length > maxChars) {
    details = 0;
    shown = largest(lines, (n) => attempt(0, n).length <= maxChars);
  }
  let text = attempt(details, shown);
  if (text.length > maxChars) {
    // Even the bare summary does not fit (a tiny limit, a huge title, a long destroy list).
    text = cutAtLines(render({ details: 0, lines: 0 }, undefined), maxChars);
    shown = 0;
  }
  return { text, detailsDropped: detailed - details, linesDropped: lines - shown };
}

/** The note that ends a report cut at a line, kept short so the summary line fits beside it at small limits. */
export const cutNote = (maxChars: number): string =>
  `> [!NOTE]\n> **Cut at ${count(maxChars)} characters.** The full plan is in the CI log (\`show PLANFILE\`).\n`;

/** Said instead when not even the note fits (a limit below what --max-chars takes, for other callers). */
export const tooLong = (maxChars: number): string => `**Cut at ${count(maxChars)} characters;** see the CI log.\n`;

/**
 * The leading whole lines of `text` that fit before the cut note, never ending inside a fold, so what is
 * shown renders as the report would and the note is never cut mid-sentence.
 */
export function cutAtLines(text: string, maxChars: number): string {
  const note = cutNote(maxChars);
  if (note.length > maxChars) {
    const short = tooLong(maxChars);
    return short.length <= maxChars ? short : short.slice(0, maxChars);
  }
  const kept: string[] = [];
  let length = note.length + 1;
  for (const line of text.split("\n")) {
    if (length + line.length + 1 > maxChars) break;
    kept.push(line);
    length += line.length + 1;
  }
  let open = kept.length - 1;
  while (open >= 0 && !kept[open]!.startsWith("<details")) open--;
  if (open >= 0 && !kept.slice(open).includes("</details>")) kept.length = open;
  // Nor end on a blank line or on an alert's `> [!WARNING]` heading without its text.
  while (kept.length > 0 && /^(?:> \[!\w+\])?$/.test(kept[kept.length - 1]!)) kept.pop();
  return kept.length === 0 ? note : `${kept.join("\n")}\n\n${note}`;
}
