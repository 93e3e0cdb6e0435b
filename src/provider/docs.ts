/**
 * Reference pages for the provider, every resource and data source, rendered from the same
 * declarations the plugin serves (so the docs cannot drift from the provider), in the layout
 * tfplugindocs writes: an example from `examples/<kind>/<type>/`, the schema by mode, nested
 * schemas, and for resources an import section.
 */
import type { AttributeSpec } from "./framework/attributes";
import type { Attributes } from "./framework/resource";
import { attributeSchema } from "./framework/schema";
import type { TfType } from "./framework/value";
import { PROVIDER_SOURCE, providerDefinition } from "./index";

export interface DocPage {
  readonly path: string;
  readonly content: string;
}

/** Reads an example file relative to the repository's `examples/` folder; undefined when there is none. */
export type ExampleReader = (path: string) => string | undefined;

function typeName(t: TfType): string {
  if (typeof t === "string") return t;
  const [kind, inner] = t;
  if (kind === "object") return "object";
  if (kind === "tuple") return `tuple([${(inner as TfType[]).map(typeName).join(", ")}])`;
  return `${kind}(${typeName(inner as TfType)})`;
}

const anchor = (path: string) => `nestedatt--${path.replace(/\./g, "--")}`;

function attributeLine(name: string, spec: AttributeSpec, path: string): string {
  const flags = [spec.block ? "Block List" : typeName(spec.type), spec.sensitive ? "sensitive" : undefined].filter(Boolean).join(", ");
  const nested = spec.nested ? ` (see [below for nested schema](#${anchor(path)}))` : "";
  return `- \`${name}\` (${flags}) ${attributeSchema(spec).description ?? ""}${nested}`.trimEnd();
}

function section(title: string, entries: [string, AttributeSpec][], prefix: string): string[] {
  if (entries.length === 0) return [];
  return [`### ${title}`, "", ...entries.map(([n, a]) => attributeLine(n, a, prefix + n)), ""];
}

/** The attributes by mode, then a section for each nested object (depth first). */
function renderAttributes(attributes: Attributes, prefix = ""): string[] {
  const entries = Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b));
  const lines = [
    ...section("Required", entries.filter(([, a]) => a.mode === "required"), prefix),
    ...section("Optional", entries.filter(([, a]) => a.mode === "optional" || a.mode === "optional_computed"), prefix),
    ...section("Read-Only", entries.filter(([, a]) => a.mode === "computed"), prefix),
  ];
  for (const [name, spec] of entries) {
    if (!spec.nested) continue;
    const path = prefix + name;
    lines.push(`<a id="${anchor(path)}"></a>`, `### Nested Schema for \`${path}\``, "", ...renderAttributes(spec.nested, `${path}.`).map((l) => l.replace(/^### /, "#### ")));
  }
  return lines;
}

const fenced = (lang: string, text: string) => ["```" + lang, text.trimEnd(), "```", ""];

function page(kind: "Provider" | "Resource" | "Data Source", name: string, description: string, attributes: Attributes, example: string | undefined, extra: string[]): string {
  return [
    `# ${name} (${kind})`,
    "",
    description,
    "",
    ...(example !== undefined ? ["## Example Usage", "", ...fenced("terraform", example)] : []),
    "## Schema",
    "",
    ...renderAttributes(attributes),
    ...extra,
  ]
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()
    .concat("\n");
}

export function renderDocs(examples: ExampleReader = () => undefined): DocPage[] {
  const def = providerDefinition({});
  const short = (t: string) => t.replace(/^mgmt_/, "");
  const source = ["terraform {", "  required_providers {", `    mgmt = { source = "${PROVIDER_SOURCE}" }`, "  }", "}"].join("\n");
  const pages: DocPage[] = [{ path: "index.md", content: page("Provider", "mgmt", def.description, def.attributes, examples("provider/provider.tf") ?? source, []) }];
  for (const r of def.resources) {
    const importShell = examples(`resources/${r.typeName}/import.sh`) ?? `terraform import ${r.typeName}.example ${r.importId.example}`;
    const importBlock = `import {\n  to = ${r.typeName}.example\n  id = "${r.importId.example}"\n}`;
    pages.push({
      path: `resources/${short(r.typeName)}.md`,
      content: page("Resource", r.typeName, r.description, r.attributes, examples(`resources/${r.typeName}/resource.tf`), [
        "## Import",
        "",
        `The import id is ${r.importId.description}. With an \`import\` block (Terraform 1.5+, OpenTofu 1.6+; add \`-generate-config-out\` to \`plan\` to have the configuration written):`,
        "",
        ...fenced("terraform", importBlock),
        "Or with the CLI:",
        "",
        ...fenced("shell", importShell),
      ]),
    });
  }
  for (const d of def.dataSources) {
    pages.push({ path: `data-sources/${short(d.typeName)}.md`, content: page("Data Source", d.typeName, d.description, d.attributes, examples(`data-sources/${d.typeName}/data-source.tf`), []) });
  }
  return pages;
}
