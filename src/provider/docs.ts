/**
 * Reference pages for every resource and data source, rendered from the same schemas the
 * plugin serves, so the docs cannot drift from the provider.
 */
import type { Attribute, Block } from "./framework/schema";
import type { TfType } from "./framework/value";
import { createProvider, PROVIDER_SOURCE } from "./index";

export interface DocPage {
  readonly path: string;
  readonly content: string;
}

function typeName(t: TfType): string {
  if (typeof t === "string") return t;
  const [kind, inner] = t;
  if (kind === "object") return `object({ ${Object.entries(inner as Record<string, TfType>).map(([k, v]) => `${k} = ${typeName(v)}`).join(", ")} })`;
  if (kind === "tuple") return `tuple([${(inner as TfType[]).map(typeName).join(", ")}])`;
  return `${kind}(${typeName(inner as TfType)})`;
}

function attributeLine(name: string, a: Attribute): string {
  const flags = [typeName(a.type), a.sensitive ? "sensitive" : undefined].filter(Boolean).join(", ");
  return `- \`${name}\` (${flags}) ${a.description ?? ""}`.trimEnd();
}

function section(title: string, entries: [string, Attribute][]): string[] {
  if (entries.length === 0) return [];
  return [`### ${title}`, "", ...entries.map(([n, a]) => attributeLine(n, a)), ""];
}

function renderBlock(block: Block): string[] {
  const attrs = Object.entries(block.attributes ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return [
    ...section("Required", attrs.filter(([, a]) => a.required)),
    ...section("Optional", attrs.filter(([, a]) => a.optional)),
    ...section("Read-only", attrs.filter(([, a]) => a.computed && !a.optional && !a.required)),
  ];
}

function page(kind: "Provider" | "Resource" | "Data Source", name: string, block: Block, extra: string[]): string {
  return [`# ${name} (${kind})`, "", block.description ?? "", "", "## Schema", "", ...renderBlock(block), ...extra].join("\n").replace(/\n{3,}/g, "\n\n").trimEnd() + "\n";
}

export function renderDocs(): DocPage[] {
  const s = createProvider().schemas();
  const short = (t: string) => t.replace(/^mgmt_/, "");
  const pages: DocPage[] = [
    {
      path: "index.md",
      content: page("Provider", "mgmt", s.provider.block, [
        "## Source",
        "",
        "```hcl",
        "terraform {",
        "  required_providers {",
        `    mgmt = { source = "${PROVIDER_SOURCE}" }`,
        "  }",
        "}",
        "```",
      ]),
    },
  ];
  for (const [name, schema] of Object.entries(s.resources)) {
    pages.push({
      path: `resources/${short(name)}.md`,
      content: page("Resource", name, schema.block, ["## Import", "", "Import an existing object by its id:", "", "```shell", `terraform import ${name}.example 12345`, "```"]),
    });
  }
  for (const [name, schema] of Object.entries(s.dataSources)) {
    pages.push({ path: `data-sources/${short(name)}.md`, content: page("Data Source", name, schema.block, []) });
  }
  return pages;
}
