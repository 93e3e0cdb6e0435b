/**
 * Typed attribute builders. One call declares everything about an attribute: its Terraform type
 * and mode, the text of its docs, its validators and its plan modifiers. The schema the engines
 * see, the validation they get, the plan rules and the generated docs and bindings all derive
 * from these declarations.
 */
import { leavingSecrets, type SecretCheck, type Validator } from "./validators";
import type { TfType, TfValue } from "./value";

/**
 * - `required`: the configuration must set it.
 * - `optional`: the configuration may set it; null otherwise.
 * - `computed`: only the provider sets it.
 * - `optional_computed`: the configuration may set it; otherwise the provider does (the live
 *   value, or the declared default).
 */
export type Mode = "required" | "optional" | "computed" | "optional_computed";

/**
 * A function of an attribute's values. Written as a method's type, so that its parameters compare both ways: a
 * spec typed by its value (`AttributeSpec<string>`, from a builder) is then also the erased `AttributeSpec` the
 * lifecycle holds, which calls these only with known, non-null values of the attribute's own type.
 */
export type OfValues<A extends readonly TfValue[], R> = { call(...args: A): R }["call"];

export interface AttributeSpec<T extends TfValue = TfValue> {
  readonly type: TfType;
  readonly mode: Mode;
  readonly description: string;
  readonly sensitive: boolean;
  /** For `optional_computed` attributes: the value planned when the configuration leaves it null. */
  readonly default?: T;
  /** A change to the attribute destroys and re-creates the object (conditionally, with a function). */
  readonly requiresReplace?: boolean | OfValues<[prior: T, planned: T], boolean>;
  /**
   * For computed attributes: an update plans the prior value instead of "known after apply"
   * (terraform-plugin-framework's UseStateForUnknown). Use it for what an update never changes.
   */
  readonly keepPrior?: boolean;
  /**
   * Values that mean the same (reordered scopes, one instant in two offsets): the plan keeps the
   * prior form and shows no change; a read keeps the state's form of the live value.
   */
  readonly semanticEquals?: OfValues<[a: T, b: T], boolean>;
  /** Checked on known, non-null configuration values. */
  readonly validators: readonly Validator<T>[];
  /**
   * Recognises a secret typed into this (string, or list of strings) attribute: refused at validate and again
   * at plan without an attribute path, so the engine never prints the value; the validators skip such values.
   */
  readonly secret?: SecretCheck;
  /** Attributes that cannot be set together with this one. */
  readonly conflictsWith: readonly string[];
  /** Nested attributes of an object-typed attribute (or of its list/set elements), for validation and docs. */
  readonly nested?: { readonly [name: string]: AttributeSpec };
  /** Declared as a nested block (`filter { ... }`) rather than an attribute; its value is a list of objects, empty when none. */
  readonly block?: { readonly minItems?: number; readonly maxItems?: number };
  /** Announced for removal: setting it warns at plan, and the schema, docs and bindings say so. */
  readonly deprecated?: Deprecation;
}

/** A deprecation is announced at least one release before the removal it names (docs/guides/upgrading.md). */
export interface Deprecation {
  /** What to use instead, as a sentence. */
  readonly message: string;
  /** The release that removes the attribute. */
  readonly removedIn: string;
}

interface Options<T extends TfValue> {
  readonly sensitive?: boolean;
  readonly default?: T;
  readonly requiresReplace?: boolean | OfValues<[prior: T, planned: T], boolean>;
  readonly keepPrior?: boolean;
  readonly semanticEquals?: OfValues<[a: T, b: T], boolean>;
  readonly validate?: Validator<T> | readonly Validator<T>[];
  readonly secret?: SecretCheck;
  readonly conflictsWith?: readonly string[];
  readonly deprecated?: Deprecation;
}

/**
 * The options are typed by the attribute's value type; the spec is stored erased, because the
 * lifecycle only ever calls its functions with known, non-null values of that type.
 */
function build<T extends TfValue, M extends Mode>(
  type: TfType,
  mode: M,
  description: string,
  o: Options<T> = {},
  nested?: AttributeSpec["nested"],
): Declared<T, M> {
  if (o.default !== undefined && mode !== "optional_computed") {
    throw new Error(`an attribute with a default must be optional_computed (description: "${description}")`);
  }
  if (o.keepPrior && mode !== "computed" && mode !== "optional_computed") {
    throw new Error(`keepPrior applies to computed attributes only (description: "${description}")`);
  }
  const spec: AttributeSpec<T> & { readonly mode: M } = {
    type,
    mode,
    description,
    sensitive: o.sensitive ?? false,
    ...(o.default !== undefined ? { default: o.default } : {}),
    ...(o.requiresReplace !== undefined ? { requiresReplace: o.requiresReplace } : {}),
    ...(o.keepPrior ? { keepPrior: true } : {}),
    ...(o.semanticEquals ? { semanticEquals: o.semanticEquals } : {}),
    validators: o.secret === undefined ? asArray(o.validate) : asArray(o.validate).map((v) => leavingSecrets(o.secret!, v)),
    ...(o.secret ? { secret: o.secret } : {}),
    conflictsWith: o.conflictsWith ?? [],
    ...(nested ? { nested } : {}),
    ...(o.deprecated ? { deprecated: o.deprecated } : {}),
  };
  return spec;
}

declare const valueType: unique symbol;

/**
 * An attribute as a builder declared it: the erased spec the lifecycle runs, plus (for the type
 * checker only) its mode and value type, from which a definition's state, plan and configuration
 * types are inferred (`value-types.ts`).
 */
export interface Declared<T extends TfValue, M extends Mode> extends AttributeSpec {
  readonly mode: M;
  readonly [valueType]?: T;
}

/** An element type: a plain type, or a nested object declared with `object`. */
type Element = TfType | AttributeSpec;
const elementType = (e: Element): TfType => (typeof e === "object" && !Array.isArray(e) ? (e as AttributeSpec).type : (e as TfType));
const elementNested = (e: Element): AttributeSpec["nested"] => (typeof e === "object" && !Array.isArray(e) ? (e as AttributeSpec).nested : undefined);

export const string = <M extends Mode>(mode: M, description: string, o?: Options<string>) => build<string, M>("string", mode, description, o);
export const number = <M extends Mode>(mode: M, description: string, o?: Options<number>) => build<number, M>("number", mode, description, o);
export const bool = <M extends Mode>(mode: M, description: string, o?: Options<boolean>) => build<boolean, M>("bool", mode, description, o);
/** A number that must be a whole number (Terraform has one number type). */
export const int = <M extends Mode>(mode: M, description: string, o: Options<number> = {}) =>
  build<number, M>("number", mode, description, { ...o, validate: [wholeNumber, ...asArray(o.validate)] });

export const list = <M extends Mode>(mode: M, description: string, element: Element, o?: Options<readonly TfValue[]>) =>
  build<readonly TfValue[], M>(["list", elementType(element)], mode, description, o, elementNested(element));
/** Compared as a set: the order of the configuration or of the API never makes a diff. */
export const set = <M extends Mode>(mode: M, description: string, element: Element, o?: Options<readonly TfValue[]>) =>
  build<readonly TfValue[], M>(["set", elementType(element)], mode, description, o, elementNested(element));

/** A single nested object; its attributes carry their own descriptions (and validators, for input objects). */
export function object<M extends Mode>(
  mode: M,
  description: string,
  attributes: { readonly [name: string]: AttributeSpec },
  o?: Options<{ readonly [k: string]: TfValue }>,
) {
  const type: TfType = ["object", Object.fromEntries(Object.entries(attributes).map(([n, a]) => [n, a.type]))];
  return build<{ readonly [k: string]: TfValue }, M>(type, mode, description, o, attributes);
}

function wholeNumber(v: number): string | undefined {
  return Number.isInteger(Number(v)) ? undefined : `must be a whole number; got ${v}`;
}

function asArray<T>(v: T | readonly T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? [...(v as T[])] : [v as T];
}

/**
 * A repeatable nested block (`filter { name = ... }`): unlike an attribute of object type, its
 * optional attributes may be left out. Its value is the list of blocks written, empty when none.
 */
export function listBlock(
  description: string,
  attributes: { readonly [name: string]: AttributeSpec },
  o: { readonly minItems?: number; readonly maxItems?: number } = {},
): Declared<readonly TfValue[], "optional"> {
  const spec = object("optional", description, attributes);
  return { ...spec, type: ["list", spec.type], block: { ...o } } as AttributeSpec as Declared<readonly TfValue[], "optional">;
}
