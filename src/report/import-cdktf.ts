/**
 * Unmanaged objects as cdktf code: a TypeScript module exporting `importUnmanaged(scope)`, which
 * declares each object with the bindings' construct, configured from the live object the way
 * `plan -generate-config-out` configures it (every required attribute, and every optional one
 * whose live value is set and not the default), and adopts it with `.importFrom(id)`. It lives in
 * the stack's source, so a fresh checkout synthesizes the same imports and resources; import
 * blocks dropped into cdktf.out are lost with the next synth. Pure: the values come in as data.
 *
 * The text is laid out as prettier (default options) lays it out, so it passes a formatting check
 * in the repository it is committed to.
 */
import { ADOPTION_CHECK, ADOPTION_CHECK_IMPORTS } from "./adoption-check";
import { adoptionIdentity } from "./adoption-identity";
import { attributeName, bindingNames } from "./import-names";
import { resourceName } from "./unmanaged";

export type AttributeMode = "required" | "optional" | "computed" | "optional_computed";

/** A resource attribute as the provider declares it (the schema, plus its default). */
export interface ImportAttribute {
  readonly name: string;
  readonly mode: AttributeMode;
  /** The Terraform type, as in `providers schema -json`: "string", ["set", "number"], ["object", {...}]... */
  readonly type: unknown;
  readonly sensitive: boolean;
  /** The value the provider plans when the configuration leaves the attribute out. */
  readonly default?: unknown;
}

export interface ImportSubject {
  readonly type: string;
  readonly importId: string;
  readonly label: string;
  readonly attributes: readonly ImportAttribute[];
  /** The object as an import puts it in state (ImportResourceState, then ReadResource). */
  readonly values: Readonly<Record<string, unknown>>;
}

/** One line of a construct's configuration, or why an attribute has none. */
export type ConfigEntry =
  | { readonly kind: "value"; readonly attribute: ImportAttribute; readonly value: unknown }
  /** Sensitive: never written into code, whether the API shows it or not. */
  | { readonly kind: "secret"; readonly attribute: ImportAttribute; readonly shown: boolean }
  /** Required, and the import cannot tell its value. */
  | { readonly kind: "missing"; readonly attribute: ImportAttribute };

const isNull = (v: unknown) => v === null || v === undefined;

/** Which attributes the generated configuration sets, from the attributes and the imported values. */
export function configEntries(attributes: readonly ImportAttribute[], values: Readonly<Record<string, unknown>>): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  for (const attribute of attributes) {
    const value = values[attribute.name];
    if (attribute.mode === "computed") {
      // A secret only the creation showed: the import leaves it null, and the comment says why.
      if (attribute.sensitive && isNull(value)) entries.push({ kind: "secret", attribute, shown: false });
      continue;
    }
    if (attribute.sensitive) {
      if (attribute.mode === "required" || !isNull(value)) entries.push({ kind: "secret", attribute, shown: !isNull(value) });
      continue;
    }
    if (isNull(value)) {
      if (attribute.mode === "required") entries.push({ kind: "missing", attribute });
      continue;
    }
    if (attribute.default !== undefined && sameValue(value, attribute.default)) continue;
    entries.push({ kind: "value", attribute, value });
  }
  return entries;
}

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * A TypeScript string literal whose value Terraform reads back as `text`: cdktf writes strings
 * into the JSON configuration as they are, where `${` and `%{` would start a template. Quoted as
 * prettier quotes: double quotes, unless the text holds more of them than single ones.
 */
export function tfStringLiteral(text: string): string {
  return tsStringLiteral(text.replace(/\$\{/g, () => "$${").replace(/%\{/g, () => "%%{"));
}

/** A TypeScript string literal of `value`, quoted as prettier quotes it. */
function tsStringLiteral(value: string): string {
  const double = JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  const doubles = value.split('"').length - 1;
  if (doubles <= value.split("'").length - 1) return double;
  return `'${double.slice(1, -1).replace(/\\(.)|'/g, (m, escaped: string | undefined) => (escaped === '"' ? '"' : escaped !== undefined ? m : "\\'"))}'`;
}

/** Text for a `//` comment: one line, whatever the label holds. */
const commentText = (text: string) => JSON.stringify(text).replace(/[\u2028\u2029]/g, " ");

const WIDTH = 80;
const pad = (depth: number) => "  ".repeat(depth);

/** Terraform's element or attribute types of a collection or object type. */
function elementType(type: unknown): unknown {
  return Array.isArray(type) && (type[0] === "list" || type[0] === "set" || type[0] === "map") ? type[1] : undefined;
}

/** A value as an expression, on one line when it fits (`first` columns are taken before it), else expanded from `depth`. */
function expression(value: unknown, type: unknown, depth: number, first: number): string[] {
  if (typeof value === "string") return [tfStringLiteral(value)];
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  if (Array.isArray(value)) return arrayExpression(value, elementType(type), depth, first);
  if (value !== null && typeof value === "object") return objectExpression(value as Record<string, unknown>, type, depth);
  return ["null"];
}

function arrayExpression(items: readonly unknown[], type: unknown, depth: number, first: number): string[] {
  const parts = items.filter((v) => !isNull(v)).map((v) => expression(v, type, depth + 1, 0));
  const inline = `[${parts.map((p) => p.join("\n")).join(", ")}]`;
  if (parts.every((p) => p.length === 1) && !inline.includes("\n") && first + inline.length <= WIDTH) return [inline];
  if (parts.length > 0 && items.every((v) => typeof v === "number")) {
    // Numbers fill the lines, as prettier fills them.
    const lines: string[] = [];
    let line = "";
    for (const [part] of parts as [string][]) {
      const next = line === "" ? `${pad(depth + 1)}${part},` : `${line} ${part},`;
      if (line !== "" && next.length > WIDTH) {
        lines.push(line);
        line = `${pad(depth + 1)}${part},`;
      } else line = next;
    }
    lines.push(line);
    return ["[", ...lines, `${pad(depth)}]`];
  }
  return ["[", ...parts.flatMap((p) => suffixLast(indentFirst(p, depth + 1), ",")), `${pad(depth)}]`];
}

function objectExpression(value: Record<string, unknown>, type: unknown, depth: number): string[] {
  const isMap = Array.isArray(type) && type[0] === "map";
  const fields = Array.isArray(type) && type[0] === "object" ? (type[1] as Record<string, unknown>) : {};
  const lines = Object.entries(value)
    .filter(([, v]) => !isNull(v))
    .flatMap(([k, v]) => property(isMap ? JSON.stringify(k) : attributeName(k), v, isMap ? elementType(type) : fields[k], depth + 1));
  return lines.length === 0 ? ["{}"] : ["{", ...lines, `${pad(depth)}}`];
}

const indentFirst = (lines: string[], depth: number) => [`${pad(depth)}${lines[0]}`, ...lines.slice(1)];
const suffixLast = (lines: string[], suffix: string) => [...lines.slice(0, -1), `${lines[lines.length - 1]}${suffix}`];

/** `key: value,` at `depth`; a string too long for the line goes on the next one, as prettier puts it. */
function property(key: string, value: unknown, type: unknown, depth: number): string[] {
  const head = `${pad(depth)}${key}: `;
  const lines = expression(value, type, depth, head.length);
  if (lines.length === 1 && typeof value === "string" && head.length + lines[0]!.length + 1 > WIDTH) {
    return [`${pad(depth)}${key}:`, `${pad(depth + 1)}${lines[0]},`];
  }
  return suffixLast([`${head}${lines[0]}`, ...lines.slice(1)], ",");
}

export interface CdktfImportOptions {
  /** The module the constructs come from, as the stack's source imports it: "@mgmt/cdktf-provider-mgmt". */
  readonly bindings: string;
  /** The provider's local name, the prefix of its resource types ("mgmt"). */
  readonly provider: string;
  /** Resource names the scope already has (the names in the state's addresses): construct ids avoid them. */
  readonly taken?: readonly string[];
}

interface Planned {
  readonly subject: ImportSubject;
  readonly id: string;
  readonly names: ReturnType<typeof bindingNames>;
  readonly entries: readonly ConfigEntry[];
  readonly skipped: boolean;
}

/**
 * Construct ids from the type and the label (`ssh_key_build_runner`), unique among themselves and
 * against `taken`; the same live objects give the same ids on every run.
 */
export function constructIds(
  subjects: readonly Pick<ImportSubject, "type" | "importId" | "label">[],
  provider: string,
  taken: readonly string[] = [],
): string[] {
  const used = new Set(taken);
  return subjects.map((s) => {
    const short = s.type.startsWith(`${provider}_`) ? s.type.slice(provider.length + 1) : s.type;
    const fromId = s.importId
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "");
    const base = `${short}_${resourceName(s.label, "").replace(/^_+/, "") || fromId || "object"}`;
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    return id;
  });
}

function construct(p: Planned): string[] {
  const { subject, id, names } = p;
  const call = `new ${names.namespace}.${names.className}(`;
  const body: string[] = [];
  for (const e of p.entries) {
    const key = attributeName(e.attribute.name);
    if (e.kind === "value") body.push(...property(key, e.value, e.attribute.type, 2));
    else if (e.kind === "secret" && e.attribute.mode === "computed") {
      body.push(`${pad(2)}// ${key}: a secret the API shows only when it is created; unset after the import.`);
    } else if (e.kind === "secret" && e.attribute.mode !== "required") {
      body.push(`${pad(2)}// ${key}: a secret, left out of the code; set it from a variable to manage it.`);
    } else body.push(`${pad(2)}${key}: "FILL IN", // required; the API does not show it`);
  }
  const object = body.length === 0 ? ["{}"] : ["{", ...body, `${pad(1)}}`];
  const importFrom = `.importFrom(${tfStringLiteral(subject.importId)});`;
  const hugged = `${pad(1)}${call}scope, ${JSON.stringify(id)}, ${object[0]}`;
  const lines =
    hugged.length <= WIDTH && (object.length > 1 || `${hugged})${importFrom}`.length <= WIDTH)
      ? object.length === 1
        ? [`${hugged})${importFrom}`]
        : [hugged, ...object.slice(1, -1), `${object[object.length - 1]})${importFrom}`]
      : [
          `${pad(1)}${call}`,
          `${pad(2)}scope,`,
          `${pad(2)}${JSON.stringify(id)},`,
          ...(object.length === 1 ? [`${pad(2)}{},`] : [`${pad(2)}{`, ...object.slice(1, -1).map((l) => `  ${l}`), `${pad(2)}},`]),
          `${pad(1)})${importFrom}`,
        ];
  const title = `${pad(1)}// ${subject.type} ${commentText(subject.label)}, id ${commentText(subject.importId)}`;
  if (!p.skipped) return [title, ...lines];
  const missing = p.entries.filter((e) => e.kind !== "value" && e.attribute.mode === "required").map((e) => attributeName(e.attribute.name));
  return [
    `${title}: not imported.`,
    `${pad(1)}// ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required and the API does not show ${missing.length === 1 ? "it" : "them"}:`,
    `${pad(1)}// fill in, add ${names.namespace} to the import from the bindings, and uncomment.`,
    ...lines.map((l) => `${pad(1)}// ${l.slice(2)}`),
  ];
}

/** The module's text. `command` is what wrote it, for its header. */
export function cdktfImportModule(subjects: readonly ImportSubject[], options: CdktfImportOptions, command = "mgmt drift --unmanaged --import-out"): string {
  const ids = constructIds(subjects, options.provider, options.taken);
  const planned: Planned[] = subjects.map((subject, i) => {
    const entries = configEntries(subject.attributes, subject.values);
    return {
      subject,
      id: ids[i]!,
      names: bindingNames(subject.type, options.provider),
      entries,
      skipped: entries.some((e) => e.kind !== "value" && e.attribute.mode === "required"),
    };
  });
  const namespaces = [...new Set(planned.filter((p) => !p.skipped).map((p) => p.names.namespace))].sort();
  const adopted = adoptedTable(planned);
  const head = [
    `// Written by \`${command}\`: the live objects no state`,
    "// manages, configured from their live values and imported by the next apply.",
    "// Call importUnmanaged(this) in the stack; the plan should only import them.",
    "// Once applied, these declarations are what keeps the objects: a later run",
    "// lists only what is still unmanaged, so write its output to another file.",
    ...(adopted.length > 0 ? ADOPTION_CHECK_IMPORTS : []),
    'import type { Construct } from "constructs";',
    ...(namespaces.length > 0 ? importLine(namespaces, options.bindings) : []),
    "",
  ];
  const used = namespaces.length > 0 ? "scope" : "_scope";
  const body = planned.flatMap((p, i) => [...(i > 0 ? [""] : []), ...construct(p)]);
  const fn =
    body.length === 0
      ? [`export function importUnmanaged(${used}: Construct): void {}`]
      : [
          `export function importUnmanaged(${used}: Construct): void {`,
          ...body,
          ...(adopted.length > 0
            ? ["", `${pad(1)}// Each import only while its id names the object it adopted (below).`, `${pad(1)}keepOnlyAdopted(scope, ADOPTED);`]
            : []),
          "}",
        ];
  const check =
    adopted.length > 0
      ? ["", "/** What each import above adopts: the live object with its id must still be this one. */", ...adopted, ADOPTION_CHECK.trimEnd()]
      : [];
  return `${[...head, ...fn, ...check].join("\n")}\n`;
}

/** The ADOPTED table: each import's construct, type, id and identity, every object expanded (prettier keeps them so). */
function adoptedTable(planned: readonly Planned[]): string[] {
  const entries = planned.flatMap((p) => {
    const identity = p.skipped ? undefined : adoptionIdentity(p.subject.type, p.subject.values);
    if (identity === undefined) return [];
    const field = (key: string, value: string, depth: number) => {
      const line = `${pad(depth)}${key}: ${tsStringLiteral(value)},`;
      return line.length <= WIDTH ? [line] : [`${pad(depth)}${key}:`, `${pad(depth + 1)}${tsStringLiteral(value)},`];
    };
    return [
      `${pad(1)}{`,
      ...field("construct", p.id, 2),
      ...field("type", p.subject.type, 2),
      ...field("id", p.subject.importId, 2),
      `${pad(2)}identity: {`,
      ...Object.entries(identity).flatMap(([k, v]) => field(k, v, 3)),
      `${pad(2)}},`,
      `${pad(1)}},`,
    ];
  });
  return entries.length === 0 ? [] : ["const ADOPTED: readonly Adopted[] = [", ...entries, "];"];
}

function importLine(namespaces: readonly string[], bindings: string): string[] {
  const line = `import { ${namespaces.join(", ")} } from ${JSON.stringify(bindings)};`;
  if (line.length <= WIDTH) return [line];
  return ["import {", ...namespaces.map((n) => `  ${n},`), `} from ${JSON.stringify(bindings)};`];
}
