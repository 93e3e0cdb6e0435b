/**
 * Resources and data sources as the provider defines them: a schema, CRUD against the API,
 * and a few declarative plan rules. The generic plan/apply logic that makes every resource
 * obey Terraform's rules lives in `lifecycle.ts`, so a resource file only says what is
 * particular to it (like a terraform-plugin-framework resource).
 */
import type { Diagnostic } from "./diagnostics";
import type { Schema } from "./schema";
import type { ObjectValue, TfValue } from "./value";

export interface AttributePlanRule {
  /** A change to this attribute destroys and re-creates the object. */
  readonly requiresReplace?: boolean;
  /**
   * Values that mean the same thing: when config and prior state agree semantically, the
   * plan keeps the prior value and shows no change (whitespace in keys, order in scopes...).
   */
  readonly semanticEquals?: (prior: TfValue, config: TfValue) => boolean;
  /** A computed attribute that the API recomputes on every update (unknown in such plans). */
  readonly recomputedOnUpdate?: boolean;
}

export interface ResourceDefinition<Ctx> {
  readonly typeName: string;
  readonly schema: Schema;
  readonly planRules?: { readonly [attribute: string]: AttributePlanRule };
  /** Config checks; values may be unknown and must then be skipped. */
  validate?(config: ObjectValue): readonly Diagnostic[];
  create(ctx: Ctx, planned: ObjectValue): Promise<ObjectValue>;
  /** null when the object no longer exists. */
  read(ctx: Ctx, state: ObjectValue): Promise<ObjectValue | null>;
  update(ctx: Ctx, prior: ObjectValue, planned: ObjectValue): Promise<ObjectValue>;
  delete(ctx: Ctx, state: ObjectValue): Promise<void>;
  /** The state of an existing object named by an import id; null when there is none. */
  importState(ctx: Ctx, id: string): Promise<ObjectValue | null>;
}

export interface DataSourceDefinition<Ctx> {
  readonly typeName: string;
  readonly schema: Schema;
  validate?(config: ObjectValue): readonly Diagnostic[];
  read(ctx: Ctx, config: ObjectValue): Promise<ObjectValue>;
}
