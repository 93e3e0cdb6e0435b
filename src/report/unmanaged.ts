/**
 * Live objects no state holds, and the `import {}` blocks that would adopt them. Pure: the live
 * listing and the state come in as data.
 */

/** Why a live object that no state holds is still not reported as unmanaged. */
export type KnownRole = "bootstrap" | "acting";

export interface LiveObject {
  readonly importId: string;
  /** A human name for the report and for deriving the `to` address; not a secret. */
  readonly label: string;
  readonly role?: KnownRole;
}

/** A resource type as the unmanaged search sees it; src/cli/unmanaged-types.ts adds how to list it. */
export interface UnmanagedKind {
  readonly type: string;
  /** Plural noun for headings. */
  readonly title: string;
  /** The import id of an object in state, from its state values. */
  readonly stateId: (values: Record<string, unknown>) => string | undefined;
}

export interface UnmanagedObject {
  readonly type: string;
  readonly importId: string;
  readonly label: string;
  /** Suggested address for the import block: `mgmt_ssh_key.build_runner`. */
  readonly to: string;
}

export interface KnownObject {
  readonly type: string;
  readonly importId: string;
  readonly label: string;
  readonly role: KnownRole;
}

export interface UnmanagedResult {
  readonly unmanaged: readonly UnmanagedObject[];
  /** Objects no state holds that are expected anyway (the bootstrap token, the acting token). */
  readonly known: readonly KnownObject[];
  /** The types that were looked at, in table order. */
  readonly types: readonly string[];
}

export interface StateObject {
  readonly address: string;
  readonly type: string;
  readonly values: Record<string, unknown>;
}

/** A resource name from a label: lower-case letters, digits and underscores, starting with a letter. */
export function resourceName(label: string, fallback: string): string {
  const slug = label
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 48)
    .replace(/_+$/, "");
  if (slug === "") return fallback;
  return /^[a-z]/.test(slug) ? slug : `${fallback}_${slug}`;
}

export function findUnmanaged(
  types: readonly UnmanagedKind[],
  state: readonly StateObject[],
  live: ReadonlyMap<string, readonly LiveObject[]>,
): UnmanagedResult {
  const taken = new Set(state.map((r) => r.address));
  const unmanaged: UnmanagedObject[] = [];
  const known: KnownObject[] = [];
  for (const t of types) {
    const held = new Set(
      state
        .filter((r) => r.type === t.type)
        .map((r) => t.stateId(r.values))
        .filter((id): id is string => id !== undefined),
    );
    const objects = [...(live.get(t.type) ?? [])].sort((a, b) => a.importId.localeCompare(b.importId, "en", { numeric: true }));
    for (const o of objects) {
      if (held.has(o.importId)) continue;
      if (o.role) {
        known.push({ type: t.type, importId: o.importId, label: o.label, role: o.role });
        continue;
      }
      const fallback = `${t.type.replace(/^mgmt_/, "")}_${o.importId.toLowerCase().replace(/[^a-z0-9]+/g, "_")}`;
      const base = `${t.type}.${resourceName(o.label, fallback)}`;
      let to = base;
      for (let n = 2; taken.has(to); n++) to = `${base}_${n}`;
      taken.add(to);
      unmanaged.push({ type: t.type, importId: o.importId, label: o.label, to });
    }
  }
  return { unmanaged, known, types: types.map((t) => t.type) };
}

/** HCL string literal; `${` and `%{` are escaped so a label is never read as a template. */
const hclString = (text: string) =>
  JSON.stringify(text)
    .replace(/\$\{/g, () => "$${")
    .replace(/%\{/g, () => "%%{");

/**
 * Ready `import {}` blocks. Put the file next to the configuration and run
 * `plan -generate-config-out=generated.tf` to have the engine write the resource blocks.
 */
export function importBlocks(objects: readonly UnmanagedObject[]): string {
  const head =
    "# Written by `mgmt drift --unmanaged --import-out`: live objects no state manages.\n# Review, then run `plan -generate-config-out=generated.tf` to have the engine write their configuration.\n";
  return (
    head +
    objects
      .map((o) => `\n# ${o.type} ${JSON.stringify(o.label).replace(/[\r\n]/g, " ")}\nimport {\n  to = ${o.to}\n  id = ${hclString(o.importId)}\n}\n`)
      .join("")
  );
}
