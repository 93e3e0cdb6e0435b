/** Markdown pieces both reports share: safe inline code, folds, and one resource with its attributes. */
import type { ResourceEntry } from "./summary";

/** Longest value shown inline; a longer one (an SSH key, a certificate) is cut with an ellipsis. */
export const MAX_VALUE_CHARS = 200;

/** Inline code that survives any content: the fence is longer than any backtick run inside. */
export function code(text: string): string {
  const flat = text.replace(/[\r\n]+/g, " ");
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") || flat === "" ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

export function value(text: string): string {
  return code(text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text);
}

/** Plain text for headings and summaries: no HTML, no markdown that could reshape the comment. */
export function plain(text: string): string {
  return text
    .replace(/[\r\n]+/g, " ")
    .replace(/[<>&]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;" })[c]!)
    .replace(/([\\`*_[\]#|])/g, "\\$1");
}

/** A fold; GitHub and GitLab both need the blank line after `<summary>` to render markdown inside. */
export function fold(summary: string, body: string[], open = false): string[] {
  return [`<details${open ? " open" : ""}><summary>${summary}</summary>`, "", ...body, "", "</details>", ""];
}

export const count = (n: number) => n.toLocaleString("en-US");

const REASONS: Record<string, string> = {
  replace_because_cannot_update: "an attribute that cannot change in place changed",
  replace_because_tainted: "the object is tainted",
  replace_by_request: "replacement was requested (-replace)",
  replace_by_triggers: "replace_triggered_by",
  delete_because_no_resource_config: "it is no longer in the configuration",
  delete_because_no_module: "its module is no longer in the configuration",
  delete_because_wrong_repetition: "count/for_each changed how it is repeated",
  delete_because_count_index: "its count index is out of range",
  delete_because_each_key: "its for_each key is gone",
  delete_because_no_move_target: "its moved target does not exist",
};

export const reasonText = (reason: string) => REASONS[reason] ?? reason.replace(/_/g, " ");

/** Said on a planned attribute line whose change only undoes an edit made outside Terraform. */
export const REVERT_NOTE = "changed outside Terraform; this plan sets it back";

export interface EntryOptions {
  readonly details: boolean;
  /** What a before → after pair means here: `planned` changes or `drift` (live vs state). */
  readonly note?: string;
}

/** `- ` line for the resource, then (with details) one nested line per changed attribute. */
export function entryLines(e: ResourceEntry, o: EntryOptions): string[] {
  const tags: string[] = [];
  if (e.deposed !== undefined) tags.push(`deposed object ${code(e.deposed)}`);
  if (e.previousAddress !== undefined) tags.push(`moved from ${code(e.previousAddress)}`);
  if (e.importId !== undefined) tags.push(`imported from id ${code(e.importId)}`);
  if (e.actionReason !== undefined) tags.push(`because ${plain(reasonText(e.actionReason))}`);
  if (e.rotation !== undefined) tags.push(`rotating ${code(e.address)}: ${plain(e.rotation)}; the new token is created before the old one is revoked`);
  if (o.note) tags.push(o.note);
  const lines = [`- ${code(e.address)}${tags.length ? ` (${tags.join("; ")})` : ""}`];
  if (!o.details) return lines;
  for (const a of e.attributes) {
    const force = (a.forcesReplacement ? " **(forces replacement)**" : "") + (a.revertsDrift ? ` (${REVERT_NOTE})` : "");
    if (a.before === undefined) lines.push(`  - ${code(a.name)}: ${value(a.after ?? "null")}${force}`);
    else if (a.after === undefined) lines.push(`  - ${code(a.name)}: ~~${value(a.before)}~~${force}`);
    else lines.push(`  - ${code(a.name)}: ${value(a.before)} → ${value(a.after)}${force}`);
  }
  return lines;
}
