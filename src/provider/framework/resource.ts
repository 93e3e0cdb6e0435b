/**
 * Resources and data sources as the provider declares them, like terraform-plugin-framework
 * resources: attributes (typed builders that carry validation, plan modifiers and docs), CRUD
 * against the API, import, and an optional plan hook for rules that span attributes or need
 * the clock. The generic rules every resource obeys live in `lifecycle.ts`; a resource file
 * says only what is particular to it.
 */
import type { AttributePath, Diagnostic } from "./diagnostics";
import type { PrivateState } from "./private-state";
import type { StateUpgrader } from "./state-upgrade";
import type { ObjectValue, TfType, TfValue } from "./value";
import type { AppliedConfigOf, Attributes, ConfigOf, DraftOf, PlannedOf, StateOf } from "./value-types";

export type { Attributes } from "./value-types";

/** What every CRUD call gets besides its values. */
export interface Operation<Ctx> {
  readonly ctx: Ctx;
  /**
   * Aborted when the engine asks the provider to stop (Ctrl-C): pass it to anything that waits.
   * Never abandon on it a write already sent: the engine records what the call answers.
   */
  readonly signal: AbortSignal;
  readonly now: () => Date;
  /** A warning shown to the user next to the resource. */
  warn(summary: string, detail?: string): void;
}

/** A resource's CRUD call: also its private state, which the engine keeps beside the state. */
export interface ResourceOperation<Ctx> extends Operation<Ctx> {
  readonly private: PrivateState;
}

/** The plan being built, handed to a resource's `modifyPlan` after the attribute rules ran. */
export interface PlanDraft<A extends Attributes = Attributes> {
  readonly prior: StateOf<A> | null;
  readonly config: ConfigOf<A>;
  /** The planned values; the hook may change them (e.g. to Unknown for a value the apply will change). */
  readonly planned: DraftOf<A>;
  readonly now: Date;
  /** Plan a replacement because of this attribute. */
  replace(attribute: string): void;
  warn(summary: string, detail?: string, attribute?: AttributePath): void;
  error(summary: string, detail?: string, attribute?: AttributePath): void;
}

export interface ImportIdDoc {
  /** What the import id is, e.g. "the token's numeric id". */
  readonly description: string;
  readonly example: string;
}

/**
 * A resource. Its value types come from its `attributes` (`value-types.ts`): what it returns
 * must have exactly the declared keys, with the declared value types.
 */
export interface ResourceDefinition<Ctx, A extends Attributes = Attributes> {
  readonly typeName: string;
  readonly description: string;
  /**
   * One upgrader per earlier schema version, oldest first: the schema version is how many there
   * are (`state-upgrade.ts`). A change to the stored shape (an attribute removed, renamed or
   * retyped) appends one; adding an attribute needs none.
   */
  readonly upgraders?: readonly StateUpgrader[];
  readonly attributes: A;
  readonly importId: ImportIdDoc;
  /** Rules across attributes (conflicts beyond `conflictsWith`, combinations); values may be unknown. */
  validate?(config: ConfigOf<A>): readonly Diagnostic[];
  /** Rules across attributes or in time (renewal windows): runs on every plan that is not a destroy. */
  modifyPlan?(draft: PlanDraft<A>): void;
  create(op: ResourceOperation<Ctx>, planned: PlannedOf<A>, config: AppliedConfigOf<A>): Promise<StateOf<A>>;
  /** The live object in state form, or null when it no longer exists (the framework warns and drops it). */
  read(op: ResourceOperation<Ctx>, state: StateOf<A>): Promise<StateOf<A> | null>;
  update(op: ResourceOperation<Ctx>, prior: StateOf<A>, planned: PlannedOf<A>, config: AppliedConfigOf<A>): Promise<StateOf<A>>;
  /** An object already gone counts as deleted. */
  delete(op: ResourceOperation<Ctx>, state: StateOf<A>): Promise<void>;
  /** The state of the object an import id names; null when there is none. */
  importState(op: ResourceOperation<Ctx>, id: string): Promise<StateOf<A> | null>;
  /**
   * At a plan that creates an object: the live objects that are its exact twins (what a create
   * interrupted before the engine recorded it leaves behind). The framework drops those whose id
   * is in the state it has seen and warns of the others; nothing is adopted. Best effort: an
   * answer it cannot have gives none.
   */
  twins?(op: Operation<Ctx>, planned: ConfigOf<A>): Promise<readonly Twin[]>;
}

/** A live object that looks like the one a plan creates. */
export interface Twin {
  readonly id: string;
  /** What makes it a twin, e.g. "an SSH key with the same label and public key". */
  readonly alike: string;
}

export interface DataSourceDefinition<Ctx, A extends Attributes = Attributes> {
  readonly typeName: string;
  readonly description: string;
  readonly attributes: A;
  validate?(config: ConfigOf<A>): readonly Diagnostic[];
  read(op: Operation<Ctx>, config: AppliedConfigOf<A>): Promise<StateOf<A>>;
}

/** What an ephemeral resource's open returns: the value, and what renew and close will need. */
export interface EphemeralOpened<A extends Attributes = Attributes> {
  /** Every attribute of the schema, wholly known. */
  readonly value: StateOf<A>;
  /** When the engine should call renew while the value is in use; none: it never needs renewing. */
  readonly renewAt?: Date;
  /** Handed back to renew and close; held by the engine in memory only, never written anywhere. */
  readonly private?: Uint8Array;
}

/**
 * A value that exists only for the length of one plan or apply (protocol 6.7), never stored
 * in state or plan: open makes it, renew keeps it valid while the run needs it, close ends it.
 */
export interface EphemeralResourceDefinition<Ctx, A extends Attributes = Attributes> {
  readonly typeName: string;
  readonly description: string;
  readonly attributes: A;
  validate?(config: ConfigOf<A>): readonly Diagnostic[];
  open(op: Operation<Ctx>, config: AppliedConfigOf<A>): Promise<EphemeralOpened<A>>;
  renew?(op: Operation<Ctx>, priv: Uint8Array | undefined): Promise<Omit<EphemeralOpened, "value">>;
  close?(op: Operation<Ctx>, priv: Uint8Array | undefined): Promise<void>;
}

export interface FunctionParameterDefinition {
  readonly name: string;
  readonly type: TfType;
  readonly description: string;
}

/**
 * A provider function (protocol 6.5): pure, so the engine may call it before the provider is
 * configured. Arguments arrive known and non-null (the engine checks that for us).
 */
export interface FunctionDefinition {
  readonly name: string;
  readonly summary: string;
  readonly description: string;
  readonly parameters: readonly FunctionParameterDefinition[];
  readonly returns: TfType;
  /** Throws FunctionFailure for an argument it cannot take. */
  call(args: readonly TfValue[]): TfValue;
}

/**
 * Identity functions that give a definition its type (and a place to check it, once, at load).
 * The context is fixed first (`defineResource<Ctx>()()(...)`) so that the attribute types are
 * inferred from the declaration rather than erased.
 */
export const defineResource =
  <Ctx>() =>
  <A extends Attributes>(def: ResourceDefinition<Ctx, A>): ResourceDefinition<Ctx, A> =>
    def;
export const defineDataSource =
  <Ctx>() =>
  <A extends Attributes>(def: DataSourceDefinition<Ctx, A>): DataSourceDefinition<Ctx, A> =>
    def;
export const defineEphemeralResource =
  <Ctx>() =>
  <A extends Attributes>(def: EphemeralResourceDefinition<Ctx, A>): EphemeralResourceDefinition<Ctx, A> =>
    def;
export const defineFunction = (def: FunctionDefinition): FunctionDefinition => def;

/** A function's answer to an argument it cannot take; the engine shows it against that argument. */
export class FunctionFailure extends Error {
  constructor(
    message: string,
    /** 0-based index of the argument at fault. */
    readonly argument?: number,
  ) {
    super(message);
  }
}

/**
 * Thrown by create or update when the object changed but a later step failed (a thumbnail
 * upload after the create): the engine records `state` with the error (a created object as
 * tainted, replaced by the next apply) instead of losing track of it.
 */
export class PartialApply extends Error {
  constructor(
    readonly state: ObjectValue,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}
