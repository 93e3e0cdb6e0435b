/**
 * The subjects of a plan: every managed resource of a type the rules know that the plan keeps (created,
 * updated, replaced or left alone; not one it destroys), with its planned values, read from the JSON of
 * `show -json PLANFILE` (either engine) through the report's plan model.
 */
import { parsePlanJson, type Plan } from "../report/plan-model";
import { RESOURCE_TYPES, UNKNOWN, type ResourceType, type Subject, type Value } from "./rules";

/**
 * Attributes the engine shows as unknown at create both when configured from a value known only at apply and when
 * not configured at all (optional and computed): the plan's `configuration` tells which, and an unconfigured one is
 * simply not set. Without that, a token that never expires would be "not checkable".
 */
const DECIDED_BY_CONFIGURATION: Partial<Record<ResourceType, readonly string[]>> = { mgmt_token: ["scopes", "expiry"] };

interface ConfigResource {
  address?: unknown;
  expressions?: unknown;
}
interface ConfigModule {
  resources?: ConfigResource[];
  module_calls?: Record<string, { module?: ConfigModule }>;
}

/** Each configured resource's expressions by its address without instance keys (`module.a.mgmt_token.t`). */
function configuredExpressions(raw: unknown): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const walk = (m: ConfigModule | undefined, prefix: string) => {
    if (typeof m !== "object" || m === null) return;
    for (const r of Array.isArray(m.resources) ? m.resources : []) {
      if (typeof r.address === "string" && typeof r.expressions === "object" && r.expressions !== null)
        out.set(prefix + r.address, r.expressions as Record<string, unknown>);
    }
    for (const [name, call] of Object.entries(m.module_calls ?? {})) walk(call?.module, `${prefix}module.${name}.`);
  };
  walk((raw as { configuration?: { root_module?: ConfigModule } } | null)?.configuration?.root_module, "");
  return out;
}

/** `module.a["x"].mgmt_token.t[0]` → `module.a.mgmt_token.t`. */
export const withoutInstanceKeys = (address: string): string => address.replace(/\[(?:\d+|"(?:[^"\\]|\\.)*")\]/g, "");

const isType = (type: string): type is ResourceType => (RESOURCE_TYPES as readonly string[]).includes(type);
const asRecord = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function scalar(v: unknown): Value {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : null;
}

/** The subjects of a parsed plan; `raw` is the same JSON unparsed, for its `configuration` (which the plan model leaves out). */
export function planSubjects(plan: Plan, raw: unknown): Subject[] {
  const configured = configuredExpressions(raw);
  const subjects: Subject[] = [];
  for (const rc of plan.resource_changes ?? []) {
    if ((rc.mode ?? "managed") !== "managed" || !isType(rc.type) || rc.deposed !== undefined) continue;
    const { change } = rc;
    if (change.after === null || change.after === undefined || (change.actions.length === 1 && change.actions[0] === "delete")) continue;
    const after = asRecord(change.after);
    const afterUnknown = asRecord(change.after_unknown);
    const allSensitive = change.after_sensitive === true;
    const afterSensitive = asRecord(change.after_sensitive);
    const expressions = configured.get(withoutInstanceKeys(rc.address));
    const values: Record<string, Value> = {};
    const sensitive = new Set<string>();
    for (const name of new Set([...Object.keys(after), ...Object.keys(afterUnknown)])) {
      if (afterUnknown[name] === true) {
        const decidable = DECIDED_BY_CONFIGURATION[rc.type]?.includes(name) && expressions !== undefined && !(name in expressions);
        values[name] = decidable ? null : UNKNOWN;
      } else values[name] = scalar(after[name]);
      if (allSensitive || afterSensitive[name] === true) sensitive.add(name);
    }
    subjects.push({ address: rc.address, type: rc.type, values, sensitive });
  }
  return subjects;
}

/** The subjects of the text of `show -json PLANFILE`; throws the plan model's PlanFormatError on anything else. */
export function planSubjectsFromJson(text: string): { plan: Plan; subjects: Subject[] } {
  const plan = parsePlanJson(text);
  return { plan, subjects: planSubjects(plan, JSON.parse(text)) };
}
