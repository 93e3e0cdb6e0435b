/**
 * `MgmtPolicy`: the same rules at synth, as a cdktf Aspect a stack adds (`Aspects.of(stack).add(new MgmtPolicy())`).
 * A violation at error severity is an error annotation on the construct, which fails `cdktf synth` naming its path
 * and the rule; a warning is a warning annotation, which the cdktf CLI prints. Each is one line: the annotations
 * carry no stack trace (a finding is about a value, not about where the code that set it ran). With
 * MGMT_POLICY_SYNTH_JSON naming a file, the findings are also written there in the form of
 * `mgmt policy check --format json`, so a CI job whose synth stopped on them can still post them for review
 * (`mgmt plan-report --synth-policy`). It ships in the bindings package (`@mgmt/cdktf-provider-mgmt/lib/policy`),
 * bundled with the rules and without zod.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { AnnotationMetadataEntryType, TerraformResource, Token, type IAspect } from "cdktf";
import type { IConstruct } from "constructs";
import { secretInName, secretInPublicKey, type FieldRule } from "../contract/field-rules";
import { judge, type Finding } from "./check";
import { policyJson } from "./json";
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

/** The environment variable naming the file the synth's findings are written to. */
export const SYNTH_FINDINGS_ENV = "MGMT_POLICY_SYNTH_JSON";

export class MgmtPolicy implements IAspect {
  private readonly config: PolicyConfig;
  private readonly now: Date;
  private readonly out = process.env[SYNTH_FINDINGS_ENV] || undefined;
  private readonly findings: Finding[] = [];
  private checked = 0;

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
    this.checked += 1;
    // One line per finding: metadata without a stack trace, whatever the app's context says.
    const annotate = (level: AnnotationMetadataEntryType, text: string) => node.node.addMetadata(level, text, { stackTrace: false });
    for (const id of RULE_IDS) {
      const f = judge(id, subject, this.config, this.now);
      if (f === undefined) continue;
      // The review reads both names: the address the plan shows, and the construct path the code declares.
      this.findings.push({ ...f, address: `${subject.aliases?.[0] ?? subject.address} (construct ${subject.address})` });
      const text = `[mgmt policy ${f.rule}] ${f.message}`;
      if (f.status === "violation" || f.status === "waiver_expired")
        annotate(f.severity === "error" ? AnnotationMetadataEntryType.ERROR : AnnotationMetadataEntryType.WARN, text);
      else if (f.status === "waived") annotate(AnnotationMetadataEntryType.INFO, `${text} (waived until ${f.waiver!.expires}: ${f.waiver!.reason})`);
      else annotate(AnnotationMetadataEntryType.INFO, `[mgmt policy ${f.rule}] ${f.message.replace("at plan", "at synth")}`);
    }
    // Rewritten after each resource: the Aspect is never told that the last one was visited.
    if (this.out !== undefined)
      writeFileSync(this.out, `${JSON.stringify(policyJson({ findings: this.findings, staleWaivers: [], checked: this.checked }, this.config), null, 2)}\n`);
  }
}
