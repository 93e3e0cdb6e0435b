/**
 * The rules Terraform enforces on plans and applies, applied once for every resource:
 * computed attributes are unknown on create and kept on update, semantically equal values keep
 * their prior form, replacement is requested only for attributes that really changed, and an
 * apply returns exactly the planned known values.
 */
import type { AttributePath } from "./diagnostics";
import type { ResourceDefinition } from "./resource";
import { Unknown, isUnknown, type ObjectValue, type TfValue } from "./value";

export interface PlannedChange {
  readonly plannedState: ObjectValue | null;
  readonly requiresReplace: readonly AttributePath[];
}

export function valuesEqual(a: TfValue, b: TfValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as readonly TfValue[];
    return a.length === bb.length && a.every((v, i) => valuesEqual(v, bb[i]!));
  }
  const ao = a as ObjectValue;
  const bo = b as ObjectValue;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!valuesEqual(ao[k] ?? null, bo[k] ?? null)) return false;
  return true;
}

export function planChange<Ctx>(def: ResourceDefinition<Ctx>, prior: ObjectValue | null, proposed: ObjectValue | null, config: ObjectValue | null): PlannedChange {
  if (proposed === null) return { plannedState: null, requiresReplace: [] };
  const attributes = def.schema.block.attributes ?? {};
  const rules = def.planRules ?? {};
  const planned: Record<string, TfValue> = { ...proposed };

  for (const [name, schemaAttr] of Object.entries(attributes)) {
    const rule = rules[name] ?? {};
    const configValue = config?.[name] ?? null;
    if (prior === null) {
      if (schemaAttr.computed && configValue === null) planned[name] = Unknown;
      continue;
    }
    const priorValue = prior[name] ?? null;
    if (rule.semanticEquals && configValue !== null && !isUnknown(configValue) && priorValue !== null && rule.semanticEquals(priorValue, configValue)) {
      planned[name] = priorValue;
    }
  }

  if (prior === null) return { plannedState: planned, requiresReplace: [] };

  const changed = (name: string) => !valuesEqual(prior[name] ?? null, planned[name] ?? null);
  const anyChange = Object.keys(attributes).some(changed);
  if (anyChange) {
    for (const [name, schemaAttr] of Object.entries(attributes)) {
      if (rules[name]?.recomputedOnUpdate && schemaAttr.computed && (config?.[name] ?? null) === null) planned[name] = Unknown;
    }
  }
  const requiresReplace = Object.keys(attributes)
    .filter((name) => rules[name]?.requiresReplace && changed(name))
    .map((name) => [{ attribute: name }]);
  return { plannedState: planned, requiresReplace };
}

/**
 * After create/update the API's answer fills what the plan left unknown; what the plan already
 * knew stays exactly as planned (the engine rejects any difference), which is also how a
 * semantically equal form the user wrote survives the API's normalisation.
 */
export function settleApplied(planned: ObjectValue, fromApi: ObjectValue): ObjectValue {
  const out: Record<string, TfValue> = {};
  for (const name of new Set([...Object.keys(planned), ...Object.keys(fromApi)])) {
    const p = planned[name] ?? null;
    out[name] = isUnknown(p) ? (fromApi[name] ?? null) : p;
  }
  return out;
}

/**
 * On refresh, keep the state's form of a value the API reports in an equivalent form, so a
 * read after apply is not a diff; any real difference (drift) comes through.
 */
export function settleRead<Ctx>(def: ResourceDefinition<Ctx>, state: ObjectValue, fromApi: ObjectValue): ObjectValue {
  const out: Record<string, TfValue> = { ...fromApi };
  for (const [name, rule] of Object.entries(def.planRules ?? {})) {
    const s = state[name] ?? null;
    const a = fromApi[name] ?? null;
    if (rule.semanticEquals && s !== null && a !== null && !isUnknown(s) && rule.semanticEquals(s, a)) out[name] = s;
  }
  return out;
}
