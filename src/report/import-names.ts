/**
 * The names the cdktf bindings give a resource type and its attributes, computed from the
 * Terraform names as @cdktf/provider-generator computes them (codemaker's camelCase and
 * PascalCase, its reserved names and attribute escapes), so generated code matches bindings
 * generated from the same schema. test/report/unmanaged.test.ts checks every name of the
 * provider's schema against the generator itself and against generated/providers/mgmt.
 */

/**
 * camelCase of a Terraform name (lower-case letters, digits and underscores), as the `camelcase`
 * package that codemaker uses gives it: separators dropped with the next character upper-cased,
 * and a letter after digits upper-cased too (`a1b` -> `a1B`).
 */
export function camelCase(name: string): string {
  return name
    .toLowerCase()
    .replace(/^[_.\- ]+/, "")
    .replace(/[_.\- ]+([\p{Alpha}\p{N}_]|$)/gu, (_, next: string) => next.toUpperCase())
    .replace(/\d+([\p{Alpha}\p{N}_]|$)/gu, (m) => m.toUpperCase());
}

export const pascalCase = (name: string): string => {
  const camel = camelCase(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
};

/** Names a generated class or namespace cannot take (TypeScript keywords, names that clash in other languages). */
const RESERVED_CLASS_NAMES = new Set([
  "string",
  "object",
  "function",
  "implements",
  "interface",
  "let",
  "package",
  "private",
  "protected",
  "public",
  "static",
  "yield",
  "await",
  "license",
  "version",
]);

/** The property name of a configurable attribute in the bindings' config interface. */
export function attributeName(terraformName: string): string {
  const name = camelCase(terraformName);
  if (name === "self" || name === "build" || name === "node" || name === "system" || name === "software") return `${name}Attribute`;
  if (name === "tfResourceType" || name === "importFrom" || name === "moveTo") return `${name}Attribute`;
  if (/^get[A-Za-z]+/.test(name)) return name.replace("get", "fetch");
  if (name === "equals") return "equalTo";
  return name;
}

export interface BindingNames {
  /** The module's namespace in the bindings' index: `import { sshKey } from "..."`. */
  readonly namespace: string;
  /** The construct class in it: `sshKey.SshKey`. */
  readonly className: string;
}

/** The namespace and class the bindings give a resource type of the provider `provider` (`mgmt_ssh_key` -> sshKey.SshKey). */
export function bindingNames(type: string, provider: string): BindingNames {
  let base = type.startsWith(`${provider}_`) ? type.slice(provider.length + 1) : type;
  if (RESERVED_CLASS_NAMES.has(base.toLowerCase()) || base === "provider") base = `${base}_resource`;
  // The module folder is the snake-cased base name with dashes (`index` would clash with the
  // package's own index); the bindings' index exports it camel-cased.
  const folder = base === "index" ? "index-resource" : base.replace(/_/g, "-");
  return { namespace: camelCase(folder), className: pascalCase(base) };
}
