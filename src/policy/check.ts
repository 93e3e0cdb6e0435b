/**
 * The rules over a set of subjects, with the configuration's severities and waivers: what the plan check prints
 * and the Aspect annotates. `now` is a parameter (waivers expire, a token's `expiry` is an instant): the CLI
 * passes the clock, tests a fixed day.
 */
import { parseDay } from "../contract/timestamps";
import type { PolicyConfig, RuleSetting, Waiver } from "./config";
import { RULES, RULE_IDS, type Outcome, type Rule, type RuleId, type Severity, type Subject } from "./rules";

/**
 * - violation: the rule fails, no waiver covers it;
 * - waived: it fails, and a waiver in force covers it;
 * - waiver_expired: it fails, and the waiver that covered it has expired: counts as a violation;
 * - not_checkable: it depends on a value known only at apply.
 */
export type FindingStatus = "violation" | "waived" | "waiver_expired" | "not_checkable";

export interface Finding {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly status: FindingStatus;
  readonly address: string;
  readonly type: Subject["type"];
  readonly message: string;
  /** The waiver that covers it (status waived or waiver_expired). */
  readonly waiver?: Waiver;
}

export interface PolicyResult {
  readonly findings: readonly Finding[];
  /** Waivers that matched no failing rule: left over from a fix, or a typo in the address. */
  readonly staleWaivers: readonly Waiver[];
  /** How many subjects were checked. */
  readonly checked: number;
}

/** Whether a finding fails the check: a violation (or one whose waiver has expired) at error severity. */
export const fails = (f: Finding): boolean => f.severity === "error" && (f.status === "violation" || f.status === "waiver_expired");
export const counts = (f: Finding): boolean => f.status === "violation" || f.status === "waiver_expired";

/** A waiver for `mgmt_token.ci` also covers each instance `mgmt_token.ci[0]`, `mgmt_token.ci["a"]`. */
export function waiverMatches(waiver: Waiver, rule: RuleId, names: readonly string[]): boolean {
  return waiver.rule === rule && names.some((name) => name === waiver.address || name.startsWith(`${waiver.address}[`));
}

/** Expired once the day named has passed in UTC: a waiver "expires 2026-03-31" holds all of that day. */
export function waiverExpired(waiver: Waiver, now: Date): boolean {
  return now.getTime() >= (parseDay(waiver.expires) ?? -Infinity) + 86_400_000;
}

/** One rule's outcome on one subject, as a finding (or nothing when it passes or is off). */
export function judge<Id extends RuleId>(id: Id, subject: Subject, config: PolicyConfig, now: Date, used?: Set<Waiver>): Finding | undefined {
  // Looked up by one id, the rule and its setting agree on the parameters' type.
  const rule: Rule<Id> = RULES[id];
  const setting: RuleSetting<Id> = config.rules[id];
  if (setting.severity === "off" || !rule.types.includes(subject.type)) return undefined;
  const outcome: Outcome = rule.check(subject, { params: setting.params, now });
  if (outcome.kind === "pass") return undefined;
  const base = { rule: rule.id, severity: setting.severity, address: subject.address, type: subject.type, message: outcome.message };
  const names = [subject.address, ...(subject.aliases ?? [])];
  const matching = config.waivers.filter((w) => waiverMatches(w, rule.id, names));
  // A waiver of a value not yet known may still be needed: it is not stale.
  for (const w of matching) used?.add(w);
  if (outcome.kind === "unknown") return { ...base, status: "not_checkable" };
  // Of several waivers, one in force is enough; otherwise the expired one is named.
  const inForce = matching.find((w) => !waiverExpired(w, now));
  if (inForce !== undefined) return { ...base, status: "waived", waiver: inForce };
  if (matching.length > 0)
    return { ...base, status: "waiver_expired", message: `${outcome.message} (its waiver expired on ${matching[0]!.expires})`, waiver: matching[0]! };
  return { ...base, status: "violation" };
}

/** Every rule on every subject, findings ordered by address, then by rule as RULE_IDS lists them. */
export function checkPolicy(subjects: readonly Subject[], config: PolicyConfig, now: Date): PolicyResult {
  const used = new Set<Waiver>();
  const findings: Finding[] = [];
  const ordered = [...subjects].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  for (const subject of ordered) {
    for (const id of RULE_IDS) {
      const finding = judge(id, subject, config, now, used);
      if (finding !== undefined) findings.push(finding);
    }
  }
  return { findings, staleWaivers: config.waivers.filter((w) => !used.has(w)), checked: subjects.length };
}
