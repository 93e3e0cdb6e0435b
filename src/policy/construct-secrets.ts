/**
 * A secret where none may go, refused at synth before anything is written: the rules' view of a resource
 * construct, and the validation that refuses a private key in `ssh_key` or a minted token or client secret
 * where a label goes. cdktf runs validations before it writes the configuration, so nothing of the value
 * reaches `cdktf.out`. The bindings' resource constructors add it themselves (scripts/package-bindings.mjs
 * ships this module as lib/secret-guard.js), so an app that never adds the `MgmtPolicy` Aspect is guarded too;
 * the Aspect adds it to any resource construct that lacks it.
 */
import { TerraformResource, Token } from "cdktf";
import type { IConstruct, IValidation } from "constructs";
import { secretInName, secretInPublicKey, type FieldRule } from "../contract/field-rules";
import { RESOURCE_TYPES, UNKNOWN, type ResourceType, type Subject, type Value } from "./rules";

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

/**
 * Marks a construct as guarded. A symbol from the global registry, not a module's set: the bindings and the
 * Aspect are separate bundles, each with its own copy of this module.
 */
const GUARDED = Symbol.for("mgmt.secret-guard");

/** Whether the construct's own validation already refuses its secrets. */
export const guardedAlready = (node: IConstruct): boolean => Object.hasOwn(node, GUARDED);

/** The validation a resource construct adds in its constructor: the reasons never quote the value. */
export function secretValidation(resource: IConstruct): IValidation {
  Object.defineProperty(resource, GUARDED, { value: true });
  return {
    validate: () => {
      const subject = constructSubject(resource);
      return subject === undefined ? [] : secretsIn(subject).map((s) => `[mgmt] ${s}`);
    },
  };
}
