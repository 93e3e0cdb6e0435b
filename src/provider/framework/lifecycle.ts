/**
 * The rules Terraform enforces on plans and applies, applied once for every resource from its
 * attribute declarations:
 * - validation: each validator on known configuration values, `conflictsWith`, a warning for a
 *   deprecated attribute that is set;
 * - plan: defaults; computed values unknown on create; on update, prior values kept where the
 *   declaration says so, and semantically equal values kept in their prior form; replacement
 *   requested only for attributes that really changed (sets compared as sets);
 * - apply: exactly the planned known values, unknowns filled from the API;
 * - read: the state's form of any value the API reports equivalently.
 */
import type { AttributeSpec } from "./attributes";
import { typedEqual } from "./equality";
import { deprecationNote } from "./schema";
import { attr, error, warning, type AttributePath, type Diagnostic } from "./diagnostics";
import type { Attributes, PlanDraft, ResourceDefinition } from "./resource";
import { misplacedSecrets, type SecretCheck } from "./validators";
import { Unknown, isUnknown, isWhollyKnown, type ObjectValue, type TfValue } from "./value";

/** Every attribute's validators and conflicts, on the known parts of a configuration. */
export function validateAttributes(attributes: Attributes, config: ObjectValue): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const conflicts = new Set<string>();
  for (const [name, spec] of Object.entries(attributes)) {
    const value = config[name] ?? null;
    if (value === null) continue;
    if (spec.deprecated) diagnostics.push(warning(`Deprecated attribute ${name}`, deprecationNote(spec.deprecated), attr(name)));
    for (const other of spec.conflictsWith) {
      const pair = [name, other].sort().join(" and ");
      if ((config[other] ?? null) !== null && !conflicts.has(pair)) {
        conflicts.add(pair);
        diagnostics.push(error("Conflicting attributes", `${pair} cannot both be set; choose one.`, attr(name)));
      }
    }
    if (isUnknown(value)) continue;
    diagnostics.push(...validateValue(spec, value, attr(name), name));
  }
  return diagnostics;
}

/**
 * The secrets a configuration holds where its attributes' `secret` checks recognise them: checked at validate
 * and again at plan (values known only then, from another resource or a module's output), before the engine
 * shows the value in a diff.
 */
export function secretsMisplaced(typeName: string, attributes: Attributes, config: ObjectValue): Diagnostic[] {
  const checks: Record<string, SecretCheck> = {};
  for (const [name, spec] of Object.entries(attributes)) if (spec.secret) checks[name] = spec.secret;
  return misplacedSecrets(typeName, config, checks);
}

function validateValue(spec: AttributeSpec, value: TfValue, path: AttributePath, label: string): Diagnostic[] {
  if (!isWhollyKnown(value)) return [];
  const out: Diagnostic[] = [];
  for (const check of spec.validators) {
    const reason = check(value);
    if (reason !== undefined) out.push(error(`Invalid ${label}`, `${label}: ${reason}`, path));
  }
  // Nested input objects validate their own attributes (single objects; elements of lists and sets).
  if (spec.nested && out.length === 0) {
    const objects = Array.isArray(value) ? (value as TfValue[]) : [value];
    objects.forEach((o, i) => {
      if (o === null || typeof o !== "object" || Array.isArray(o)) return;
      const where: AttributePath = Array.isArray(value) && spec.type[0] === "list" ? [...path, { index: i }] : path;
      for (const [n, s] of Object.entries(spec.nested!)) {
        const v = (o as ObjectValue)[n] ?? null;
        if (v !== null) out.push(...validateValue(s, v, [...where, { attribute: n }], `${label}.${n}`));
      }
    });
  }
  return out;
}

export interface PlannedChange {
  readonly plannedState: ObjectValue | null;
  readonly requiresReplace: readonly AttributePath[];
  readonly diagnostics: readonly Diagnostic[];
}

/** PlanResourceChange for one resource: pure, given the clock. */
export function planChange<Ctx>(
  def: ResourceDefinition<Ctx>,
  prior: ObjectValue | null,
  proposed: ObjectValue | null,
  config: ObjectValue | null,
  now: Date,
): PlannedChange {
  if (proposed === null || config === null) return { plannedState: null, requiresReplace: [], diagnostics: [] };
  const planned: Record<string, TfValue> = { ...proposed };
  const entries = Object.entries(def.attributes);

  for (const [name, spec] of entries) {
    const configValue = config[name] ?? null;
    if (configValue === null && spec.default !== undefined) {
      planned[name] = spec.default;
      continue;
    }
    if (prior === null) {
      if (spec.mode !== "required" && spec.mode !== "optional" && configValue === null) planned[name] = Unknown;
      continue;
    }
    const priorValue = prior[name] ?? null;
    if (spec.semanticEquals && configValue !== null && isWhollyKnown(configValue) && priorValue !== null && spec.semanticEquals(priorValue, configValue)) {
      planned[name] = priorValue;
    }
  }

  const replace = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const draft: PlanDraft = {
    prior,
    config,
    planned,
    now,
    replace: (attribute) => void replace.add(attribute),
    warn: (summary, detail, attribute) => void diagnostics.push(warning(summary, detail, attribute)),
    error: (summary, detail, attribute) => void diagnostics.push(error(summary, detail, attribute)),
  };

  if (prior !== null) {
    const changed = (name: string) => !typedEqual(def.attributes[name]!.type, prior[name] ?? null, planned[name] ?? null);
    // Like terraform-plugin-framework: an update leaves the computed values it may change unknown.
    if (entries.some(([name]) => changed(name))) {
      for (const [name, spec] of entries) {
        const computedOnly = spec.mode === "computed" || (spec.mode === "optional_computed" && (config[name] ?? null) === null && spec.default === undefined);
        if (computedOnly && !spec.keepPrior) planned[name] = Unknown;
      }
    }
    for (const [name, spec] of entries) {
      const rule = spec.requiresReplace;
      if (rule === undefined || rule === false || !changed(name)) continue;
      if (rule === true || isUnknown(planned[name] ?? null) || rule(prior[name] ?? null, planned[name] ?? null)) replace.add(name);
    }
  }
  diagnostics.push(...secretsMisplaced(def.typeName, def.attributes, config));
  def.modifyPlan?.(draft);
  return { plannedState: planned, requiresReplace: [...replace].map((name) => attr(name)), diagnostics };
}

/**
 * After create/update the API's answer fills what the plan left unknown; what the plan already
 * knew stays exactly as planned (the engine rejects any difference), which is also how a
 * semantically equal form the user wrote survives the API's normalisation.
 */
export function settleApplied(planned: ObjectValue, fromApi: ObjectValue, partial = false): ObjectValue {
  const out: Record<string, TfValue> = {};
  for (const name of new Set([...Object.keys(planned), ...Object.keys(fromApi)])) {
    const p = planned[name] ?? null;
    const value = isWhollyKnown(p) ? p : (fromApi[name] ?? null);
    // A failed apply's state must still be wholly known; what it never learnt is null.
    out[name] = partial && !isWhollyKnown(value) ? null : value;
  }
  return out;
}

/**
 * On refresh, keep the state's form of a value the API reports in an equivalent form (another
 * set order, another offset of one instant...), so a read after apply is not a diff; any real
 * difference (drift) comes through.
 */
export function settleRead(attributes: Attributes, state: ObjectValue, fromApi: ObjectValue): ObjectValue {
  const out: Record<string, TfValue> = { ...fromApi };
  for (const [name, spec] of Object.entries(attributes)) {
    const s = state[name] ?? null;
    const a = fromApi[name] ?? null;
    if (s === null || a === null || !isWhollyKnown(s)) continue;
    if (typedEqual(spec.type, s, a) || spec.semanticEquals?.(s, a)) out[name] = s;
  }
  return out;
}
