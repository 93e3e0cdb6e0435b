/**
 * The warnings a review should see: the engine's warning diagnostics from the plan's log (the
 * provider's among them), with every secret the plan knows masked, as values are elsewhere.
 */
import type { EngineDiagnostic } from "./engine-log";
import { maskText, sensitiveStrings } from "./mask";
import type { Change, Plan } from "./plan-model";

export interface ReportWarning {
  readonly summary: string;
  readonly detail: string;
  readonly address?: string;
  readonly filename?: string;
  readonly line?: number;
}

/** Every string the plan marks sensitive: in resource and output changes, drift, and sensitive variables. */
export function planSecrets(plan: Plan): string[] {
  const fromChange = (c: Change) => [...sensitiveStrings(c.before, c.before_sensitive), ...sensitiveStrings(c.after, c.after_sensitive)];
  const sensitiveVariables = Object.entries(plan.configuration?.root_module?.variables ?? {}).filter(([, v]) => v.sensitive === true);
  return [
    ...[...(plan.resource_changes ?? []), ...(plan.resource_drift ?? [])].flatMap((rc) => fromChange(rc.change)),
    ...Object.values(plan.output_changes ?? {}).flatMap(fromChange),
    ...sensitiveVariables.flatMap(([name]) => sensitiveStrings(plan.variables?.[name]?.value, true)),
  ];
}

/** The warning diagnostics, masked against the plan's secrets. */
export function reportWarnings(plan: Plan, diagnostics: readonly EngineDiagnostic[]): ReportWarning[] {
  const secrets = planSecrets(plan);
  return diagnostics
    .filter((d) => d.severity === "warning")
    .map((d) => ({
      summary: maskText(d.summary, secrets),
      detail: maskText(d.detail, secrets),
      ...(d.address !== undefined ? { address: d.address } : {}),
      ...(d.filename !== undefined ? { filename: d.filename } : {}),
      ...(d.line !== undefined ? { line: d.line } : {}),
    }));
}
