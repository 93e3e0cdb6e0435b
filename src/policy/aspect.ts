/**
 * `MgmtPolicy`: the same rules at synth, as a cdktf Aspect a stack adds (`Aspects.of(stack).add(new MgmtPolicy())`).
 * A violation at error severity is an error annotation on the construct, which fails `cdktf synth` naming its path
 * and the rule; a warning is a warning annotation, which the cdktf CLI prints. It ships in the bindings package
 * (`@mgmt/cdktf-provider-mgmt/lib/policy`), bundled with the rules and without zod.
 */
import { existsSync, readFileSync } from "node:fs";
import { Annotations, TerraformResource, Token, type IAspect } from "cdktf";
import type { IConstruct } from "constructs";
import { secretInName, secretInPublicKey, type FieldRule } from "../contract/field-rules";
import { judge } from "./check";
import { DEFAULT_CONFIG, DEFAULT_CONFIG_FILE, parsePolicyConfig, type PolicyConfig } from "./config";
import { RESOURCE_TYPES, RULE_IDS, UNKNOWN, type ResourceType, type Subject, type Value } from "./rules";

export interface MgmtPolicyOptions {
  /** The configuration file; default `mgmt-policy.json` in the current folder when present, else every rule at its default. */
  readonly configFile?: string;
  /** The clock waivers and absolute expiries are read against; default the time of the synth. */
  readonly now?: Date;
}

const isType = (type: string): type is ResourceType => (RESOURCE_TYPES as readonly string[]).includes(type);

/** A configured value as the rules read it: a token (a reference, a variable) is known only at apply. */
function value(v: unknown): Value {
  if (v === undefined || v === null) return null;
  if (Token.isUnresolved(v)) return UNKNOWN;
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : UNKNOWN;
}

/** The rules' view of a resource construct, or undefined for any other construct. */
export function constructSubject(node: IConstruct): Subject | undefined {
  if (!(node instanceof TerraformResource) || !isType(node.terraformResourceType)) return undefined;
  const type = node.terraformResourceType;
  const id = node.friendlyUniqueId;
  const body = ((node.toTerraform() as { resource?: Record<string, Record<string, Record<string, unknown>>> }).resource?.[type]?.[id] ?? {}) as Record<
    string,
    unknown
  >;
  const values: Record<string, Value> = Object.fromEntries(Object.entries(body).map(([k, v]): [string, Value] => [k, value(v)]));
  // The resource address the plan will show, so that one waiver serves plan and synth.
  return { address: node.node.path, aliases: [`${type}.${id}`], type, values, sensitive: new Set() };
}

/**
 * Attributes a secret must never reach, with the rule that tells one (the provider refuses the same at
 * validate, but only after the synth has written the value into cdk.tf.json).
 */
const NO_SECRET: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  mgmt_ssh_key: { ssh_key: secretInPublicKey, label: secretInName },
  mgmt_token: { label: secretInName },
  mgmt_oauth_client: { label: secretInName },
};

/** Why each configured value of `subject` is a secret where none may go; the reasons never quote the value. */
export function secretsIn(subject: Subject): string[] {
  const rules = NO_SECRET[subject.type] ?? {};
  return Object.entries(rules).flatMap(([attribute, rule]) => {
    const v = subject.values[attribute];
    const reason = typeof v === "string" ? rule(v) : undefined;
    return reason === undefined ? [] : [`${attribute}: ${reason}`];
  });
}

export class MgmtPolicy implements IAspect {
  private readonly config: PolicyConfig;
  private readonly now: Date;

  constructor(options: MgmtPolicyOptions = {}) {
    const file = options.configFile ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
    // A bad file fails the synth here, with its line, as `mgmt policy check` would.
    this.config = file === undefined ? DEFAULT_CONFIG : parsePolicyConfig(readFileSync(file, "utf8"), file);
    this.now = options.now ?? new Date();
  }

  visit(node: IConstruct): void {
    const subject = constructSubject(node);
    if (subject === undefined) return;
    // A validation, not an annotation: cdktf runs validations before it writes the configuration, so a
    // refused secret stops the synth with nothing of it on disk (an error annotation fails only afterwards).
    const secrets = secretsIn(subject);
    if (secrets.length > 0) node.node.addValidation({ validate: () => secrets.map((s) => `[mgmt] ${s}`) });
    for (const id of RULE_IDS) {
      const f = judge(id, subject, this.config, this.now);
      if (f === undefined) continue;
      const text = `[mgmt policy ${f.rule}] ${f.message}`;
      if (f.status === "violation" || f.status === "waiver_expired") {
        if (f.severity === "error") Annotations.of(node).addError(text);
        else Annotations.of(node).addWarning(text);
      } else if (f.status === "waived") Annotations.of(node).addInfo(`${text} (waived until ${f.waiver!.expires}: ${f.waiver!.reason})`);
      else Annotations.of(node).addInfo(`[mgmt policy ${f.rule}] ${f.message.replace("at plan", "at synth")}`);
    }
  }
}
