/**
 * The value types of a definition, inferred from its attribute declarations (as
 * terraform-plugin-framework binds a model struct by its `tfsdk` tags): a resource reads
 * `planned.label` as a string and its state mapping must return exactly the declared keys. The
 * framework itself runs on the erased forms (`ObjectValue`); these types exist for the checker.
 */
import type { AttributeSpec, Declared, Mode } from "./attributes";
import type { TfValue, UnknownValue } from "./value";

export interface Attributes {
  readonly [name: string]: AttributeSpec;
}

/** The value type an attribute was declared with; any value for an erased spec. */
type ValueOf<S> = S extends Declared<infer T, Mode> ? (unknown extends T ? TfValue : T) : TfValue;
type ModeOf<S> = S extends { readonly mode: infer M } ? M : Mode;

/** A state (what create, read, update and import return): wholly known; only a required attribute is never null. */
export type StateOf<A extends Attributes> = {
  readonly [K in keyof A]: [ModeOf<A[K]>] extends ["required"] ? ValueOf<A[K]> : ValueOf<A[K]> | null;
};

/**
 * A planned state at apply: what the configuration sets is known; what the provider computes
 * may still be unknown (the apply fills it).
 */
export type PlannedOf<A extends Attributes> = {
  readonly [K in keyof A]: [ModeOf<A[K]>] extends ["required"]
    ? ValueOf<A[K]>
    : [ModeOf<A[K]>] extends ["optional"]
      ? ValueOf<A[K]> | null
      : ValueOf<A[K]> | null | UnknownValue;
};

/** A configuration as validation and planning see it: any value may be null or not known yet. */
export type ConfigOf<A extends Attributes> = { readonly [K in keyof A]: ValueOf<A[K]> | null | UnknownValue };

/** A configuration at apply (and a data source's at read): every value known; computed-only attributes are null. */
export type AppliedConfigOf<A extends Attributes> = {
  readonly [K in keyof A]: [ModeOf<A[K]>] extends ["required"] ? ValueOf<A[K]> : ValueOf<A[K]> | null;
};

/** The plan a resource's plan hook may change. */
export type DraftOf<A extends Attributes> = { -readonly [K in keyof A]: ValueOf<A[K]> | null | UnknownValue };
