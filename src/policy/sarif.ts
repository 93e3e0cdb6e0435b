/**
 * The check as SARIF 2.1.0 (`--format sarif`), for code-scanning uploads: one rule per policy rule, one result per
 * finding, located by the resource address (a logical location: a plan has no source lines). A waived finding is
 * a result with an accepted external suppression, as SARIF says waivers are; stale waivers are configuration
 * notifications of the run.
 */
import type { PolicyConfig } from "./config";
import type { Finding, PolicyResult } from "./check";
import { RULES, RULE_IDS } from "./rules";

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
export const POLICY_DOCS = "docs/guides/policy.md";

type Level = "error" | "warning" | "note" | "none";

function level(f: Finding): Level {
  if (f.status === "not_checkable") return "note";
  return f.severity;
}

export function policySarif(result: PolicyResult, config: PolicyConfig, toolVersion: string): Record<string, unknown> {
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "mgmt policy",
            version: toolVersion,
            informationUri: "https://registry.mgmt.test/providers/mgmt/mgmt/latest/docs/guides/policy",
            rules: RULE_IDS.map((id) => ({
              id,
              name: id,
              shortDescription: { text: RULES[id].reason },
              helpUri: `https://registry.mgmt.test/providers/mgmt/mgmt/latest/docs/guides/policy#${id}`,
              defaultConfiguration: config.rules[id].severity === "off" ? { enabled: false, level: "none" } : { level: config.rules[id].severity },
            })),
          },
        },
        invocations: [
          {
            executionSuccessful: true,
            toolConfigurationNotifications: result.staleWaivers.map((w) => ({
              level: "warning",
              message: { text: `stale waiver: ${w.rule} on ${w.address} (expires ${w.expires}) matches no finding; remove it` },
              associatedRule: { id: w.rule, index: RULE_IDS.indexOf(w.rule) },
            })),
          },
        ],
        results: result.findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: RULE_IDS.indexOf(f.rule),
          level: level(f),
          message: { text: `${f.address}: ${f.message}` },
          locations: [{ logicalLocations: [{ fullyQualifiedName: f.address, name: f.address, kind: "resource" }] }],
          partialFingerprints: { "mgmtPolicy/v1": `${f.rule}:${f.address}` },
          ...(f.status === "waived" && f.waiver !== undefined
            ? { suppressions: [{ kind: "external", status: "accepted", justification: `${f.waiver.reason} (until ${f.waiver.expires})` }] }
            : {}),
        })),
      },
    ],
  };
}
