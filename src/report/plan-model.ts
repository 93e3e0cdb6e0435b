/**
 * The plan JSON of `terraform show -json PLANFILE` / `tofu show -json PLANFILE`, as far as the
 * reports read it. Every field the reports do not need is left out of the schema (zod strips it), and
 * every field an engine may omit is optional, so any 1.x format from either engine parses.
 */
import { z } from "zod";

export const AttributePath = z.array(z.union([z.string(), z.number()]));
export type AttributePath = z.infer<typeof AttributePath>;

/** `before`/`after` plus the parallel trees that say which leaves are sensitive or unknown. */
export const Change = z.object({
  actions: z.array(z.string()),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
  after_unknown: z.unknown().optional(),
  before_sensitive: z.unknown().optional(),
  after_sensitive: z.unknown().optional(),
  replace_paths: z.array(AttributePath).optional(),
  importing: z.object({ id: z.string().optional() }).nullish(),
});
export type Change = z.infer<typeof Change>;

export const ResourceChange = z.object({
  address: z.string(),
  previous_address: z.string().optional(),
  mode: z.string().optional(),
  type: z.string(),
  deposed: z.string().optional(),
  change: Change,
  action_reason: z.string().optional(),
});
export type ResourceChange = z.infer<typeof ResourceChange>;

export const RelevantAttribute = z.object({ resource: z.string(), attribute: AttributePath });
export type RelevantAttribute = z.infer<typeof RelevantAttribute>;

const StateResource = z.object({ address: z.string(), mode: z.string().optional(), type: z.string(), values: z.record(z.string(), z.unknown()).nullish() });
export type StateResource = z.infer<typeof StateResource>;
interface StateModule {
  resources?: StateResource[];
  child_modules?: StateModule[];
}
const StateModule: z.ZodType<StateModule> = z.lazy(() =>
  z.object({ resources: z.array(StateResource).optional(), child_modules: z.array(StateModule).optional() }),
);

/** Input variables' values, and (in `configuration`) which were declared sensitive: their values appear in clear. */
const Variables = z.record(z.string(), z.object({ value: z.unknown().optional() }));
const Configuration = z.object({
  root_module: z.object({ variables: z.record(z.string(), z.object({ sensitive: z.boolean().optional() })).optional() }).optional(),
});

export const Plan = z.object({
  format_version: z.string(),
  variables: Variables.optional(),
  configuration: Configuration.optional(),
  terraform_version: z.string().optional(),
  resource_changes: z.array(ResourceChange).optional(),
  resource_drift: z.array(ResourceChange).optional(),
  relevant_attributes: z.array(RelevantAttribute).optional(),
  output_changes: z.record(z.string(), Change).optional(),
  prior_state: z.object({ values: z.object({ root_module: StateModule.optional() }).nullish() }).nullish(),
  planned_values: z.unknown().optional(),
  errored: z.boolean().optional(),
});
export type Plan = z.infer<typeof Plan>;

/** Input the reports cannot use; the message names the problem for the person reading CI logs. */
export class PlanFormatError extends Error {
  override name = "PlanFormatError";
}

const SUPPORTED_MAJOR = "1";

export function parsePlanJson(text: string): Plan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const head = text.trim() === "" ? "the input is empty" : `the input is not JSON (${err instanceof Error ? err.message : String(err)})`;
    throw new PlanFormatError(`${head}; expected the output of 'terraform show -json PLANFILE' or 'tofu show -json PLANFILE'`);
  }
  return parsePlan(data);
}

export function parsePlan(data: unknown): Plan {
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new PlanFormatError("the plan JSON must be an object with a format_version");
  const version = (data as { format_version?: unknown }).format_version;
  if (typeof version !== "string") throw new PlanFormatError("the JSON has no format_version; expected the output of 'show -json PLANFILE'");
  if (version.split(".")[0] !== SUPPORTED_MAJOR)
    throw new PlanFormatError(`unsupported plan format_version "${version}": this reads format ${SUPPORTED_MAJOR}.x`);
  const record = data as Record<string, unknown>;
  // `show -json` without a plan file prints the state, which has the same format_version.
  if (!("resource_changes" in record) && !("planned_values" in record) && !("resource_drift" in record) && "values" in record) {
    throw new PlanFormatError("this is state JSON ('show -json' without a plan file), not a plan; run 'show -json PLANFILE'");
  }
  const parsed = Plan.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PlanFormatError(`the plan JSON does not have the expected shape at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}

/** Every managed resource in the plan's prior state, child modules included. */
export function priorStateResources(plan: Plan): StateResource[] {
  const out: StateResource[] = [];
  const walk = (m: StateModule | undefined) => {
    if (!m) return;
    for (const r of m.resources ?? []) if ((r.mode ?? "managed") === "managed") out.push(r);
    for (const c of m.child_modules ?? []) walk(c);
  };
  walk(plan.prior_state?.values?.root_module);
  return out;
}
