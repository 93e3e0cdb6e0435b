/**
 * The JSON of `mgmt policy check --format json` read back, for `mgmt plan-report --policy`: the check runs once in
 * CI (its exit code gates the job) and the comment shows what it found, rendered by ./markdown as the check prints it.
 */
import type { Waiver } from "./config";
import type { Finding, FindingStatus, PolicyResult } from "./check";
import { POLICY_JSON_VERSION, type PolicyJson, type PolicyJsonWaiver } from "./json";
import { RULE_IDS, type RuleId, type SeveritySetting } from "./rules";

export class PolicyJsonError extends Error {}

const STATUSES: readonly FindingStatus[] = ["violation", "waived", "waiver_expired", "not_checkable"];
const SEVERITY_SETTINGS: readonly SeveritySetting[] = ["error", "warning", "off"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isRule = (v: unknown): v is RuleId => (RULE_IDS as readonly unknown[]).includes(v);
const isSeveritySetting = (v: unknown): v is SeveritySetting => (SEVERITY_SETTINGS as readonly unknown[]).includes(v);

function waiver(v: unknown, where: string): PolicyJsonWaiver {
  if (!isObject(v) || !isRule(v.rule) || typeof v.address !== "string" || typeof v.reason !== "string" || typeof v.expires !== "string")
    throw new PolicyJsonError(`${where} is not a waiver (rule, address, reason, expires)`);
  return { rule: v.rule, address: v.address, reason: v.reason, expires: v.expires };
}

/** Checks the shape it renders from: a file from another command (or another version) fails here, not as a broken comment. */
export function parsePolicyJson(text: string): PolicyJson {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new PolicyJsonError(`not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(doc) || !("findings" in doc)) throw new PolicyJsonError("not the output of 'mgmt policy check --format json'");
  if (doc.format_version !== POLICY_JSON_VERSION)
    throw new PolicyJsonError(`unsupported format_version ${JSON.stringify(doc.format_version)}: this reads format ${POLICY_JSON_VERSION}`);
  const { summary, findings, stale_waivers: stale, rules } = doc;
  const passed = doc.passed;
  if (typeof passed !== "boolean" || !isObject(summary)) throw new PolicyJsonError("passed or summary is missing or malformed");
  const count = (key: string): number => {
    const n = summary[key];
    if (typeof n !== "number" || !Number.isInteger(n)) throw new PolicyJsonError("passed or summary is missing or malformed");
    return n;
  };
  if (!Array.isArray(findings) || !Array.isArray(stale)) throw new PolicyJsonError("findings or stale_waivers is not a list");
  if (!Array.isArray(rules)) throw new PolicyJsonError("rules is not a list");
  return {
    format_version: POLICY_JSON_VERSION,
    passed,
    summary: {
      checked: count("checked"),
      errors: count("errors"),
      warnings: count("warnings"),
      waived: count("waived"),
      waivers_expired: count("waivers_expired"),
      not_checkable: count("not_checkable"),
      stale_waivers: count("stale_waivers"),
    },
    rules: rules.map((r, i) => {
      if (!isObject(r) || !isRule(r.id) || !isSeveritySetting(r.severity) || typeof r.reason !== "string")
        throw new PolicyJsonError(`rules[${i}] is not a rule (id, severity, reason)`);
      return { id: r.id, severity: r.severity, reason: r.reason };
    }),
    findings: findings.map((f, i) => {
      const where = `findings[${i}]`;
      if (
        !isObject(f) ||
        !isRule(f.rule) ||
        (f.severity !== "error" && f.severity !== "warning") ||
        !(STATUSES as readonly unknown[]).includes(f.status) ||
        typeof f.address !== "string" ||
        typeof f.type !== "string" ||
        typeof f.message !== "string"
      )
        throw new PolicyJsonError(`${where} is not a finding`);
      return {
        rule: f.rule,
        severity: f.severity,
        status: f.status as FindingStatus,
        address: f.address,
        type: f.type,
        message: f.message,
        ...(f.waiver !== undefined ? { waiver: waiver(f.waiver, `${where}.waiver`) } : {}),
      };
    }),
    stale_waivers: stale.map((w, i) => waiver(w, `stale_waivers[${i}]`)),
  };
}

/** Line 0: the JSON does not say where a waiver is written, and the markdown then leaves the line out. */
const fromJsonWaiver = (w: PolicyJsonWaiver): Waiver => ({ ...w, line: 0 });

/** The result the JSON was made from, as far as the markdown renderer reads it. */
export function policyResultFromJson(json: PolicyJson): PolicyResult {
  return {
    checked: json.summary.checked,
    findings: json.findings.map((f): Finding => ({
      rule: f.rule,
      severity: f.severity,
      status: f.status,
      address: f.address,
      type: f.type as Finding["type"],
      message: f.message,
      ...(f.waiver !== undefined ? { waiver: fromJsonWaiver(f.waiver) } : {}),
    })),
    staleWaivers: json.stale_waivers.map(fromJsonWaiver),
  };
}
