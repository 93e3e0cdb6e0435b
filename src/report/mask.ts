/**
 * Turns a plan value into display leaves with every sensitive part replaced by a marker. This is the
 * only place that reads raw values for display, so a secret can reach a report only through a bug here.
 *
 * The engines mark sensitivity and unknown-ness with trees parallel to the value (`true` at a leaf or
 * at a whole subtree). Where the marker tree and the value disagree in shape, the value is masked:
 * a wrong guess must hide, never show.
 */
import { MINTED_SECRET } from "../contract/field-rules";
import { PRIVATE_KEY_BLOCK } from "../contract/sshkey-format";
import type { AttributePath } from "./plan-model";

export const SENSITIVE = "(sensitive)";
export const UNKNOWN = "(known after apply)";

export interface Leaf {
  readonly path: AttributePath;
  /** What a report may print: a JSON literal, `(sensitive)`, `(known after apply)`, `{}` or `[]`. */
  readonly shown: string;
  /**
   * A fingerprint for telling whether a sensitive leaf changed without printing it. Never rendered;
   * for non-sensitive leaves it equals `shown`.
   */
  readonly identity: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === "object" && v !== null;

function child(marks: unknown, key: string | number): unknown {
  if (Array.isArray(marks)) return typeof key === "number" ? marks[key] : undefined;
  if (isObject(marks)) return marks[String(key)];
  return undefined;
}

/** True when a marker tree marks anything at all below this point. */
function marksAnything(marks: unknown): boolean {
  if (marks === true) return true;
  if (Array.isArray(marks)) return marks.some(marksAnything);
  if (isObject(marks)) return Object.values(marks).some(marksAnything);
  return false;
}

function literal(value: unknown): string {
  if (value === undefined) return "null";
  return JSON.stringify(value) ?? "null";
}

/**
 * The leaves of `value`. `sensitive` and `unknown` are the engine's marker trees for it (`true`,
 * `false`, or objects/arrays of the value's shape). Unknown leaves may be absent from the value
 * (`after` omits what is known only after apply), so they are visited from the unknown tree too.
 */
export function leaves(value: unknown, sensitive: unknown, unknown?: unknown): Leaf[] {
  const out: Leaf[] = [];
  const visit = (path: AttributePath, v: unknown, s: unknown, u: unknown) => {
    if (s === true) {
      out.push({ path, shown: SENSITIVE, identity: `s:${literal(v)}` });
      return;
    }
    // Absent from the value but marked below in the unknown tree: some of it comes at apply.
    if (u === true || (v === undefined && marksAnything(u))) {
      out.push({ path, shown: UNKNOWN, identity: UNKNOWN });
      return;
    }
    if (!isContainer(v)) {
      // A marker tree with marks below a scalar: the shapes disagree, so hide it.
      if (marksAnything(s)) out.push({ path, shown: SENSITIVE, identity: `s:${literal(v)}` });
      else out.push({ path, shown: literal(v), identity: literal(v) });
      return;
    }
    const keys: (string | number)[] = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v).sort();
    if (Array.isArray(v) && Array.isArray(u)) for (let i = v.length; i < u.length; i++) if (marksAnything(u[i])) keys.push(i);
    if (isObject(v) && isObject(u)) for (const k of Object.keys(u).sort()) if (!(k in v) && marksAnything(u[k])) keys.push(k);
    if (keys.length === 0) {
      const empty = Array.isArray(v) ? "[]" : "{}";
      out.push({ path, shown: empty, identity: empty });
      return;
    }
    for (const k of keys) visit([...path, k], (v as Record<string | number, unknown>)[k], child(s, k), child(u, k));
  };
  visit([], value, sensitive, unknown);
  return out;
}

/** One value as a single display string: the whole of it masked if any part is sensitive. */
export function shownValue(value: unknown, sensitive: unknown, unknown?: unknown): string {
  if (marksAnything(sensitive) || (sensitive !== undefined && sensitive !== false && !isContainer(sensitive))) return SENSITIVE;
  if (unknown === true) return UNKNOWN;
  if (marksAnything(unknown)) {
    const parts = leaves(value, false, unknown);
    return parts.length === 1 && parts[0]!.path.length === 0 ? parts[0]!.shown : `(partly known after apply)`;
  }
  return literal(value);
}

/** `label`, `tags[0]`, `settings.name`, `labels["a b"]`. */
export function formatPath(path: AttributePath): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(part)) text += text === "" ? part : `.${part}`;
    else text += `[${JSON.stringify(part)}]`;
  }
  return text === "" ? "(value)" : text;
}

/** The raw strings a value holds at sensitive leaves: what text shown beside the plan must not repeat. */
export function sensitiveStrings(value: unknown, sensitive: unknown): string[] {
  const out: string[] = [];
  const collect = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (isContainer(v)) for (const c of Object.values(v)) collect(c);
  };
  const visit = (v: unknown, s: unknown) => {
    if (s === true) collect(v);
    else if (isContainer(v)) for (const [k, c] of Object.entries(v)) visit(c, child(s, Array.isArray(v) ? Number(k) : k));
    else if (marksAnything(s)) collect(v);
  };
  visit(value, sensitive);
  return out;
}

/** A minted token or client secret standing alone in free text. */
const MINTED_IN_TEXT = new RegExp(`(?<![0-9A-Za-z])${MINTED_SECRET.source}(?![0-9A-Za-z])`, "g");
/** Shorter sensitive strings are left alone: replacing "no" or "1" everywhere would garble the text and hide nothing. */
const SHORTEST_MASKED = 4;

/**
 * Free text (an engine's diagnostic) as a report may print it: every occurrence of a known sensitive
 * string, any private key and anything shaped like a token the API mints replaced by `(sensitive)`.
 */
export function maskText(text: string, secrets: readonly string[]): string {
  let masked = text;
  const longestFirst = [...new Set(secrets)].filter((s) => s.length >= SHORTEST_MASKED).sort((a, b) => b.length - a.length);
  for (const secret of longestFirst) masked = masked.split(secret).join(SENSITIVE);
  return masked.replace(PRIVATE_KEY_BLOCK, SENSITIVE).replace(MINTED_IN_TEXT, SENSITIVE);
}
