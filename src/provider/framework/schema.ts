/**
 * Schemas in the shape of `terraform providers schema -json`, which is also what
 * @cdktf/provider-generator reads. The plugin converts these to tfplugin6 Schema messages;
 * `mgmt schema` prints them as they are.
 */
import type { AttributeSpec, Deprecation } from "./attributes";
import type { FunctionDefinition } from "./resource";
import type { TfType } from "./value";

export interface Attribute {
  readonly type: TfType;
  readonly description?: string;
  readonly description_kind?: "plain" | "markdown";
  readonly required?: boolean;
  readonly optional?: boolean;
  readonly computed?: boolean;
  readonly sensitive?: boolean;
  readonly deprecated?: boolean;
}

export interface BlockType {
  readonly nesting_mode: "single" | "list" | "set" | "map" | "group";
  readonly block: Block;
  readonly min_items?: number;
  readonly max_items?: number;
}

export interface Block {
  readonly attributes?: { readonly [name: string]: Attribute };
  readonly block_types?: { readonly [name: string]: BlockType };
  readonly description?: string;
  readonly description_kind?: "plain" | "markdown";
  readonly deprecated?: boolean;
}

export interface Schema {
  readonly version: number;
  readonly block: Block;
}

/** As `terraform providers schema -json` prints a provider function. */
export interface FunctionParameter {
  readonly name: string;
  readonly type: TfType;
  readonly description?: string;
  /** Whether null may be passed; otherwise the engine rejects a null argument itself. */
  readonly is_nullable?: boolean;
}

export interface FunctionSignature {
  readonly summary?: string;
  /** Plain text: the JSON form has no description kind for functions. */
  readonly description?: string;
  readonly return_type: TfType;
  readonly parameters?: readonly FunctionParameter[];
  readonly variadic_parameter?: FunctionParameter;
}

/** The object type a block's values have on the wire. */
export function blockType(block: Block): TfType {
  const attrs: Record<string, TfType> = {};
  for (const [name, a] of Object.entries(block.attributes ?? {})) attrs[name] = a.type;
  for (const [name, bt] of Object.entries(block.block_types ?? {})) {
    const inner = blockType(bt.block);
    switch (bt.nesting_mode) {
      case "single":
      case "group":
        attrs[name] = inner;
        break;
      case "list":
        attrs[name] = ["list", inner];
        break;
      case "set":
        attrs[name] = ["set", inner];
        break;
      case "map":
        attrs[name] = ["map", inner];
        break;
    }
  }
  return ["object", attrs];
}

/**
 * The schema of a declaration. Descriptions gain what the declaration already says (the
 * default, that a change replaces the object), so docs and bindings cannot contradict the rules.
 */
export function schemaOf(description: string, attributes: { readonly [name: string]: AttributeSpec }, version = 0): Schema {
  return { version, block: { ...blockOf(attributes), description, description_kind: "plain" } };
}

function blockOf(attributes: { readonly [name: string]: AttributeSpec }): Block {
  const attrs: Record<string, Attribute> = {};
  const blocks: Record<string, BlockType> = {};
  for (const [name, spec] of Object.entries(attributes)) {
    if (spec.block) {
      blocks[name] = {
        nesting_mode: "list",
        block: { ...blockOf(spec.nested ?? {}), description: spec.description, description_kind: "plain" },
        ...(spec.block.minItems !== undefined ? { min_items: spec.block.minItems } : {}),
        ...(spec.block.maxItems !== undefined ? { max_items: spec.block.maxItems } : {}),
      };
    } else {
      attrs[name] = attributeSchema(spec);
    }
  }
  return { attributes: attrs, ...(Object.keys(blocks).length > 0 ? { block_types: blocks } : {}) };
}

export function attributeSchema(spec: AttributeSpec): Attribute {
  return {
    type: spec.type,
    description: fullDescription(spec),
    description_kind: "plain",
    ...(spec.mode === "required" ? { required: true } : {}),
    ...(spec.mode === "optional" || spec.mode === "optional_computed" ? { optional: true } : {}),
    ...(spec.mode === "computed" || spec.mode === "optional_computed" ? { computed: true } : {}),
    ...(spec.sensitive ? { sensitive: true } : {}),
    ...(spec.deprecated ? { deprecated: true } : {}),
  };
}

/** The one sentence docs, bindings and the plan's warning give a deprecated attribute. */
export const deprecationNote = (d: Deprecation): string => `Deprecated: ${d.message} It is removed in release ${d.removedIn}.`;

function fullDescription(spec: AttributeSpec): string {
  const notes = spec.deprecated ? [deprecationNote(spec.deprecated), spec.description] : [spec.description];
  if (spec.default !== undefined) notes.push(`Defaults to \`${JSON.stringify(spec.default)}\`.`);
  if (spec.requiresReplace === true && spec.mode !== "computed") notes.push("Changing it replaces the object.");
  if (spec.conflictsWith.length > 0) notes.push(`Conflicts with ${spec.conflictsWith.map((n) => `\`${n}\``).join(", ")}.`);
  return notes.join(" ");
}

export function functionSignature(f: FunctionDefinition): FunctionSignature {
  return {
    summary: f.summary,
    description: f.description,
    return_type: f.returns,
    parameters: f.parameters.map((p) => ({ name: p.name, type: p.type, description: p.description })),
  };
}
