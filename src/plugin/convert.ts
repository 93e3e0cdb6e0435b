/**
 * Our framework shapes (JSON-style schemas, diagnostics, attribute paths) to tfplugin6
 * messages. Values are the codec's job; this module only moves structure.
 */
import type { AttributePath, Diagnostic } from "../provider/framework/diagnostics";
import type { Block, FunctionParameter, FunctionSignature, Schema } from "../provider/framework/schema";
import { encodeTypeJson } from "./codec";
import { tfplugin6 } from "./proto/gen/messages";

const NESTING: Record<string, tfplugin6.Schema.NestedBlock.NestingMode> = {
  single: tfplugin6.Schema.NestedBlock.NestingMode.SINGLE,
  list: tfplugin6.Schema.NestedBlock.NestingMode.LIST,
  set: tfplugin6.Schema.NestedBlock.NestingMode.SET,
  map: tfplugin6.Schema.NestedBlock.NestingMode.MAP,
  group: tfplugin6.Schema.NestedBlock.NestingMode.GROUP,
};

const kind = (k?: "plain" | "markdown") => (k === "markdown" ? tfplugin6.StringKind.MARKDOWN : tfplugin6.StringKind.PLAIN);

// Names are sorted so the schema bytes are stable across runs (the engines do not care).
const sortedEntries = <T>(o: { readonly [k: string]: T } | undefined): [string, T][] =>
  Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function toProtoBlock(block: Block): tfplugin6.Schema.IBlock {
  return {
    attributes: sortedEntries(block.attributes).map(([name, a]) => ({
      name,
      type: encodeTypeJson(a.type),
      description: a.description ?? "",
      descriptionKind: kind(a.description_kind),
      required: a.required ?? false,
      optional: a.optional ?? false,
      computed: a.computed ?? false,
      sensitive: a.sensitive ?? false,
      deprecated: a.deprecated ?? false,
    })),
    blockTypes: sortedEntries(block.block_types).map(([typeName, bt]) => {
      const nesting = NESTING[bt.nesting_mode];
      if (nesting === undefined) throw new Error(`block type "${typeName}" has unknown nesting mode "${bt.nesting_mode}"`);
      return { typeName, nesting, block: toProtoBlock(bt.block), minItems: bt.min_items ?? 0, maxItems: bt.max_items ?? 0 };
    }),
    description: block.description ?? "",
    descriptionKind: kind(block.description_kind),
    deprecated: block.deprecated ?? false,
  };
}

export function toProtoSchema(schema: Schema): tfplugin6.ISchema {
  return { version: schema.version, block: toProtoBlock(schema.block) };
}

function toProtoParameter(p: FunctionParameter): tfplugin6.Function.IParameter {
  return {
    name: p.name,
    type: encodeTypeJson(p.type),
    allowNullValue: p.is_nullable ?? false,
    // Off: the engine answers unknown for a call with an unknown argument without asking us.
    allowUnknownValues: false,
    description: p.description ?? "",
    descriptionKind: tfplugin6.StringKind.PLAIN,
  };
}

export function toProtoFunction(f: FunctionSignature): tfplugin6.IFunction {
  return {
    parameters: (f.parameters ?? []).map(toProtoParameter),
    ...(f.variadic_parameter ? { variadicParameter: toProtoParameter(f.variadic_parameter) } : {}),
    return: { type: encodeTypeJson(f.return_type) },
    summary: f.summary ?? "",
    description: f.description ?? "",
    descriptionKind: tfplugin6.StringKind.PLAIN,
  };
}

export function toProtoTimestamp(at: Date): tfplugin6.ITimestamp {
  const ms = at.getTime();
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 };
}

export function toProtoPath(path: AttributePath): tfplugin6.IAttributePath {
  return {
    steps: path.map((step): tfplugin6.AttributePath.IStep => {
      if ("attribute" in step) return { attributeName: step.attribute };
      if ("key" in step) return { elementKeyString: step.key };
      return { elementKeyInt: step.index };
    }),
  };
}

export function toProtoDiagnostic(d: Diagnostic): tfplugin6.IDiagnostic {
  return {
    severity: d.severity === "warning" ? tfplugin6.Diagnostic.Severity.WARNING : tfplugin6.Diagnostic.Severity.ERROR,
    summary: d.summary,
    detail: d.detail ?? "",
    ...(d.attribute && d.attribute.length > 0 ? { attribute: toProtoPath(d.attribute) } : {}),
  };
}

export const toProtoDiagnostics = (ds: readonly Diagnostic[]): tfplugin6.IDiagnostic[] => ds.map(toProtoDiagnostic);

/** int64 fields decode as numbers, or as Long objects when protobufjs finds the `long` package. */
export function int64ToNumber(v: number | { toNumber(): number } | null | undefined): number {
  if (v === null || v === undefined) return 0;
  return typeof v === "number" ? v : v.toNumber();
}
