/**
 * `mgmt-policy.json`: each rule's severity and parameters, and the waivers. Checked by hand rather than by zod
 * (the synth Aspect reads it too, in the bindings package), and every problem names its line: an unknown key is a
 * typo that would otherwise silently switch a rule back to its default.
 */
import { parseDay, parseDuration } from "../contract/timestamps";
import { JsonSyntaxError, parseJsonWithLines, type JsonNode } from "./json-lines";
import { RULES, RULE_IDS, isRuleId, type RuleId, type RuleParams, type SeveritySetting } from "./rules";

export const DEFAULT_CONFIG_FILE = "mgmt-policy.json";

export interface RuleSetting<Id extends RuleId> {
  readonly severity: SeveritySetting;
  readonly params: RuleParams[Id];
}

export interface Waiver {
  readonly rule: RuleId;
  /** A resource address (`mgmt_token.ci`, `module.x.mgmt_token.ci["a"]`) or a construct path (`stack/ci-token`). */
  readonly address: string;
  readonly reason: string;
  /** YYYY-MM-DD: the waiver holds through that day (UTC). */
  readonly expires: string;
  /** Where it is written, for the report (0 when it was not read from a file). */
  readonly line: number;
}

export interface PolicyConfig {
  readonly rules: { readonly [Id in RuleId]: RuleSetting<Id> };
  readonly waivers: readonly Waiver[];
}

export class PolicyConfigError extends Error {
  override name = "PolicyConfigError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(`${file}:${line}: ${problem}`);
  }
}

const DEFAULT_PARAMS: { readonly [Id in RuleId]: RuleParams[Id] } = {
  "token-expiry": { max_lifetime: "2160h", maxLifetimeMs: parseDuration("2160h")! },
  "token-scopes": { read_only_areas: [], allowed_areas: null },
  "token-renewal": { min_renew_before: "72h", minRenewBeforeMs: parseDuration("72h")! },
  "oauth-redirect-https": {},
  "oauth-public": {},
  "ssh-key-strength": { min_rsa_bits: 3072 },
  "label-pattern": { pattern: null },
};

const setting = <Id extends RuleId>(id: Id): RuleSetting<Id> => ({ severity: RULES[id].defaultSeverity, params: DEFAULT_PARAMS[id] });

/**
 * One setting per rule, each made for its own id: the entries are written out because a record built from
 * RULE_IDS (Object.fromEntries) cannot carry each rule's own parameter type; the type checker holds them to
 * RULE_IDS (a rule left out or a name not a rule fails the build).
 */
const perRule = (make: <Id extends RuleId>(id: Id) => RuleSetting<Id>): PolicyConfig["rules"] => ({
  "token-expiry": make("token-expiry"),
  "token-scopes": make("token-scopes"),
  "token-renewal": make("token-renewal"),
  "oauth-redirect-https": make("oauth-redirect-https"),
  "oauth-public": make("oauth-public"),
  "ssh-key-strength": make("ssh-key-strength"),
  "label-pattern": make("label-pattern"),
});

/** Every rule at its default severity and parameters, no waivers: what applies without a file. */
export const DEFAULT_CONFIG: PolicyConfig = {
  rules: perRule(setting),
  waivers: [],
};

type Fail = (line: number, problem: string) => never;

const kindName = (node: JsonNode): string => (node.kind === "object" ? "an object" : node.kind === "array" ? "an array" : `a ${node.kind}`);

function objectOf(node: JsonNode, what: string, allowed: readonly string[], fail: Fail): Map<string, JsonNode> {
  if (node.kind !== "object") return fail(node.line, `${what} must be an object, not ${kindName(node)}`);
  const out = new Map<string, JsonNode>();
  for (const { key, line, value } of node.entries) {
    if (!allowed.includes(key)) return fail(line, `unknown key "${key}" in ${what}; expected one of ${allowed.join(", ")}`);
    if (out.has(key)) return fail(line, `"${key}" is given twice in ${what}`);
    out.set(key, value);
  }
  return out;
}

function stringOf(node: JsonNode, what: string, fail: Fail): string {
  if (node.kind !== "string" || node.value.trim() === "") return fail(node.line, `${what} must be a non-empty string`);
  return node.value;
}

function durationOf(node: JsonNode, what: string, fail: Fail): { text: string; ms: number } {
  const text = stringOf(node, what, fail);
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) return fail(node.line, `${what} must be a duration such as "2160h" or "72h" (units h, m, s, ms); got "${text}"`);
  return { text, ms };
}

function areasOf(node: JsonNode, what: string, fail: Fail): string[] {
  if (node.kind !== "array") return fail(node.line, `${what} must be an array of scope areas such as "account"`);
  return node.items.map((item) => {
    const area = stringOf(item, `each of ${what}`, fail);
    if (!/^[a-z][a-z_]*$/.test(area)) fail(item.line, `${what}: "${area}" is not a scope area (lower-case letters and _, as in "child_account")`);
    return area;
  });
}

/** The parameters of rule `id`, from its object's entries other than `severity`. */
function paramsOf<Id extends RuleId>(id: Id, given: Map<string, JsonNode>, fail: Fail): RuleParams[Id] {
  const what = (key: string) => `rules.${id}.${key}`;
  const base = DEFAULT_PARAMS[id] as RuleParams[RuleId];
  const at = (key: string) => given.get(key);
  let params: RuleParams[RuleId];
  switch (id) {
    case "token-expiry": {
      const node = at("max_lifetime");
      const d = node === undefined ? undefined : durationOf(node, what("max_lifetime"), fail);
      params = d === undefined ? base : { max_lifetime: d.text, maxLifetimeMs: d.ms };
      break;
    }
    case "token-scopes": {
      const readOnly = at("read_only_areas");
      const allowed = at("allowed_areas");
      params = {
        read_only_areas: readOnly === undefined ? [] : areasOf(readOnly, what("read_only_areas"), fail),
        allowed_areas: allowed === undefined ? null : areasOf(allowed, what("allowed_areas"), fail),
      };
      break;
    }
    case "token-renewal": {
      const node = at("min_renew_before");
      const d = node === undefined ? undefined : durationOf(node, what("min_renew_before"), fail);
      params = d === undefined ? base : { min_renew_before: d.text, minRenewBeforeMs: d.ms };
      break;
    }
    case "ssh-key-strength": {
      const node = at("min_rsa_bits");
      if (node !== undefined && (node.kind !== "number" || !Number.isInteger(node.value) || node.value < 1024))
        fail(node.line, `${what("min_rsa_bits")} must be an integer of at least 1024`);
      params = node === undefined ? base : { min_rsa_bits: (node as { value: number }).value };
      break;
    }
    case "label-pattern": {
      const node = at("pattern");
      const pattern = node === undefined ? null : stringOf(node, what("pattern"), fail);
      if (pattern !== null) {
        try {
          new RegExp(pattern, "u");
        } catch (err) {
          fail(node!.line, `${what("pattern")} is not a regular expression: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      params = { pattern };
      break;
    }
    default:
      params = base;
  }
  return params as RuleParams[Id];
}

/** The parameter keys each rule takes besides `severity`. */
export const PARAM_KEYS: { readonly [Id in RuleId]: readonly string[] } = {
  "token-expiry": ["max_lifetime"],
  "token-scopes": ["read_only_areas", "allowed_areas"],
  "token-renewal": ["min_renew_before"],
  "oauth-redirect-https": [],
  "oauth-public": [],
  "ssh-key-strength": ["min_rsa_bits"],
  "label-pattern": ["pattern"],
};

const SEVERITIES: readonly SeveritySetting[] = ["error", "warning", "off"];

function severityOf(node: JsonNode, what: string, fail: Fail): SeveritySetting {
  if (node.kind !== "string" || !(SEVERITIES as readonly string[]).includes(node.value))
    return fail(node.line, `${what} must be "error", "warning" or "off"${node.kind === "string" ? `, not "${node.value}"` : ""}`);
  return node.value as SeveritySetting;
}

function ruleSetting<Id extends RuleId>(id: Id, node: JsonNode, fail: Fail): RuleSetting<Id> {
  // A bare severity is the short form: "oauth-public": "off".
  if (node.kind === "string") return { severity: severityOf(node, `rules.${id}`, fail), params: DEFAULT_PARAMS[id] };
  const given = objectOf(node, `rules.${id}`, ["severity", ...PARAM_KEYS[id]], fail);
  const severity = given.get("severity");
  return {
    severity: severity === undefined ? RULES[id].defaultSeverity : severityOf(severity, `rules.${id}.severity`, fail),
    params: paramsOf(id, given, fail),
  };
}

function waiverOf(node: JsonNode, index: number, fail: Fail): Waiver {
  const what = `waivers[${index}]`;
  const given = objectOf(node, what, ["rule", "address", "reason", "expires"], fail);
  const need = (key: string): JsonNode => given.get(key) ?? fail(node.line, `${what} needs "${key}"`);
  const ruleNode = need("rule");
  const rule = stringOf(ruleNode, `${what}.rule`, fail);
  if (!isRuleId(rule)) return fail(ruleNode.line, `${what}.rule "${rule}" is no rule; the rules are ${RULE_IDS.join(", ")}`);
  const expiresNode = need("expires");
  const expires = stringOf(expiresNode, `${what}.expires`, fail);
  if (parseDay(expires) === undefined) return fail(expiresNode.line, `${what}.expires must be a day written YYYY-MM-DD, not "${expires}"`);
  return {
    rule,
    address: stringOf(need("address"), `${what}.address`, fail),
    reason: stringOf(need("reason"), `${what}.reason`, fail),
    expires,
    line: node.line,
  };
}

/** The configuration in `text` (the contents of `file`, which only names it in errors). */
export function parsePolicyConfig(text: string, file = DEFAULT_CONFIG_FILE): PolicyConfig {
  const fail: Fail = (line, problem) => {
    throw new PolicyConfigError(file, line, problem);
  };
  let root: JsonNode;
  try {
    root = parseJsonWithLines(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return fail(err.line, `not JSON: ${err.message}`);
    throw err;
  }
  // "$schema" is for editors that look for one; it changes nothing here.
  const top = objectOf(root, "the configuration", ["$schema", "rules", "waivers"], fail);
  const rulesNode = top.get("rules");
  const given = rulesNode === undefined ? new Map<string, JsonNode>() : objectOf(rulesNode, "rules", RULE_IDS, fail);
  const rules = perRule((id) => {
    const node = given.get(id);
    return node === undefined ? setting(id) : ruleSetting(id, node, fail);
  });
  const waiversNode = top.get("waivers");
  if (waiversNode !== undefined && waiversNode.kind !== "array") fail(waiversNode.line, `waivers must be an array, not ${kindName(waiversNode)}`);
  const waivers = waiversNode?.kind === "array" ? waiversNode.items.map((item, i) => waiverOf(item, i, fail)) : [];
  return { rules, waivers };
}
