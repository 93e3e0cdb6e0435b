/**
 * OAuth scopes: `*` (everything) or space-separated `<area>:<access>` with access `read_only`
 * or `read_write`; `read_write` on an area implies `read_only` on it.
 */
const ACCESS_LEVELS = ["read_only", "read_write"] as const;
export type Access = (typeof ACCESS_LEVELS)[number];
const isAccess = (text: string | undefined): text is Access => (ACCESS_LEVELS as readonly (string | undefined)[]).includes(text);
export type Scope = `${string}:${Access}`;

const SCOPE_ITEM = /^([a-z][a-z_]*):(read_only|read_write)$/;

/**
 * The scope areas the API's operations require (`account`, `events`, `child_account`). The API
 * accepts any well-formed area (docs/gaps.md, "Unknown scope areas"); these are the ones that grant something.
 */
export const SCOPE_AREAS = ["account", "child_account", "events"] as const;

export type ScopeParse = { ok: true; scopes: Scopes } | { ok: false; reason: string };

export class Scopes {
  private constructor(
    /** null: all (`*`). Otherwise the strongest access held per area. */
    private readonly areas: ReadonlyMap<string, Access> | null,
  ) {}

  static readonly ALL = new Scopes(null);

  static parse(text: string): ScopeParse {
    const items = text
      .trim()
      .split(/\s+/)
      .filter((s) => s !== "");
    if (items.length === 0) return { ok: false, reason: "Scopes must not be empty" };
    if (items.includes("*")) {
      return items.length === 1 ? { ok: true, scopes: Scopes.ALL } : { ok: false, reason: "'*' cannot be combined with other scopes" };
    }
    const areas = new Map<string, Access>();
    for (const item of items) {
      const m = SCOPE_ITEM.exec(item);
      const area = m?.[1];
      const access = m?.[2];
      if (area === undefined || !isAccess(access))
        return { ok: false, reason: `'${item}' is not a valid scope; use '*' or '<area>:read_only' / '<area>:read_write'` };
      if (areas.get(area) !== "read_write") areas.set(area, access);
    }
    return { ok: true, scopes: new Scopes(areas) };
  }

  /** The areas named, each once, in first-given order; none for `*`. */
  get namedAreas(): string[] {
    return this.areas === null ? [] : [...this.areas.keys()];
  }

  get isAll(): boolean {
    return this.areas === null;
  }

  /** Whether these scopes cover `required`. */
  allows(required: Scope): boolean {
    if (this.areas === null) return true;
    const [area, access] = required.split(":") as [string, Access];
    const held = this.areas.get(area);
    return held === "read_write" || (held === "read_only" && access === "read_only");
  }

  /** Whether every scope in `other` is covered by these ("may not exceed the acting token's"). */
  covers(other: Scopes): boolean {
    if (this.areas === null) return true;
    if (other.areas === null) return false;
    return [...other.areas].every(([area, access]) => this.allows(`${area}:${access}`));
  }

  /** Same meaning: order, repetition and a `read_only` implied by `read_write` on its area do not count. */
  equals(other: Scopes): boolean {
    return this.covers(other) && other.covers(this);
  }

  toString(): string {
    if (this.areas === null) return "*";
    return [...this.areas].map(([area, access]) => `${area}:${access}`).join(" ");
  }
}

/** Whether two scope texts mean the same; false when either does not parse. */
export function sameScopes(a: string, b: string): boolean {
  const pa = Scopes.parse(a);
  const pb = Scopes.parse(b);
  return pa.ok && pb.ok && pa.scopes.equals(pb.scopes);
}
