/**
 * The check as JSON (`--format json`): the shape a later Policy section of `mgmt plan-report` reads, and what a CI
 * step may keep as an artifact. Values are never in it, only what the rules say of them (sensitive ones masked).
 */
import type { PolicyConfig, Waiver } from "./config";
import { counts, fails, type Finding, type PolicyResult } from "./check";
import { RULES, RULE_IDS, type RuleId, type SeveritySetting } from "./rules";

export const POLICY_JSON_VERSION = "1";

export interface PolicyJsonWaiver {
  readonly rule: RuleId;
  readonly address: string;
  readonly reason: string;
  readonly expires: string;
}

export interface PolicyJson {
  readonly format_version: typeof POLICY_JSON_VERSION;
  /** False when a violation at error severity (or one whose waiver expired) is present: exit 2. */
  readonly passed: boolean;
  readonly summary: {
    readonly checked: number;
    readonly errors: number;
    readonly warnings: number;
    readonly waived: number;
    readonly waivers_expired: number;
    readonly not_checkable: number;
    readonly stale_waivers: number;
  };
  readonly rules: readonly { readonly id: RuleId; readonly severity: SeveritySetting; readonly reason: string }[];
  readonly findings: readonly {
    readonly rule: RuleId;
    readonly severity: Finding["severity"];
    readonly status: Finding["status"];
    readonly address: string;
    readonly type: string;
    readonly message: string;
    readonly waiver?: PolicyJsonWaiver;
  }[];
  readonly stale_waivers: readonly PolicyJsonWaiver[];
}

const waiverJson = (w: Waiver): PolicyJsonWaiver => ({ rule: w.rule, address: w.address, reason: w.reason, expires: w.expires });

export function policyJson(result: PolicyResult, config: PolicyConfig): PolicyJson {
  const { findings } = result;
  return {
    format_version: POLICY_JSON_VERSION,
    passed: !findings.some(fails),
    summary: {
      checked: result.checked,
      errors: findings.filter(fails).length,
      warnings: findings.filter((f) => counts(f) && f.severity === "warning").length,
      waived: findings.filter((f) => f.status === "waived").length,
      waivers_expired: findings.filter((f) => f.status === "waiver_expired").length,
      not_checkable: findings.filter((f) => f.status === "not_checkable").length,
      stale_waivers: result.staleWaivers.length,
    },
    rules: RULE_IDS.map((id) => ({ id, severity: config.rules[id].severity, reason: RULES[id].reason })),
    findings: findings.map((f) => ({
      rule: f.rule,
      severity: f.severity,
      status: f.status,
      address: f.address,
      type: f.type,
      message: f.message,
      ...(f.waiver !== undefined ? { waiver: waiverJson(f.waiver) } : {}),
    })),
    stale_waivers: result.staleWaivers.map(waiverJson),
  };
}
