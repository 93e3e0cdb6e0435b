/** mgmt-policy.json: every rule at its default, written out so a team sees what it may tighten, waive or turn off. */
import { DEFAULT_CONFIG } from "../../../policy/config";
import { RULE_IDS } from "../../../policy/rules";

/** A rule's parameters as the file spells them: the internal milliseconds and the unset (null) ones left out. */
function fileParams(params: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([key, value]) => !key.endsWith("Ms") && value !== null));
}

export function policyJson(): string {
  const rules = Object.fromEntries(
    RULE_IDS.map((id) => {
      const { severity, params } = DEFAULT_CONFIG.rules[id];
      return [id, { severity, ...fileParams(params) }];
    }),
  );
  return `${JSON.stringify({ rules, waivers: [] }, null, 2)}\n`;
}
