/**
 * The check as SARIF 2.1.0 (`--format sarif`), for code-scanning uploads: one rule per policy rule, one result per
 * finding, located by the resource address (a logical location: a plan has no source lines) and, when the
 * configuration's file is given, by the line that declares the resource there (code-scanning uploads want a
 * file to show an alert on). A waived finding is
 * a result with an accepted external suppression, as SARIF says waivers are; stale waivers are configuration
 * notifications of the run.
 */
import type { PolicyConfig } from "./config";
import type { Finding, PolicyResult } from "./check";
import { RULES, RULE_IDS } from "./rules";

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

type Level = "error" | "warning" | "note" | "none";

function level(f: Finding): Level {
  if (f.status === "not_checkable") return "note";
  return f.severity;
}

/** The configuration file results point at: its path as the repository names it, and its text. */
export interface SarifSource {
  readonly uri: string;
  readonly text: string;
}

/**
 * The line declaring the resource at `address` in an HCL file (`resource "mgmt_token" "ci"`) or a JSON one
 * (`"mgmt_token": {` then `"ci": {`, as cdktf synthesizes), or 1 when neither is found.
 */
export function declarationLine(text: string, address: string): number {
  const m = /(?:^|\.)(mgmt_[a-z_]+)\.([A-Za-z0-9_-]+)(?:\[[^\]]*\])?$/.exec(address);
  const type = m?.[1];
  const name = m?.[2];
  if (type === undefined || name === undefined) return 1;
  const lines = text.split("\n");
  const hcl = lines.findIndex((l) => new RegExp(`^\\s*resource\\s+"${type}"\\s+"${name}"`).test(l));
  if (hcl >= 0) return hcl + 1;
  const block = lines.findIndex((l) => l.includes(`"${type}"`));
  const json = block < 0 ? -1 : lines.findIndex((l, i) => i > block && l.includes(`"${name}"`));
  return json >= 0 ? json + 1 : 1;
}

/** The tool as SARIF names it: its version, and where its rules are documented (each rule at `#<id>`). */
export interface SarifTool {
  readonly version: string;
  readonly docsUrl: string;
}

export function policySarif(result: PolicyResult, config: PolicyConfig, tool: SarifTool, source?: SarifSource): Record<string, unknown> {
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "mgmt policy",
            version: tool.version,
            informationUri: tool.docsUrl,
            rules: RULE_IDS.map((id) => ({
              id,
              name: id,
              shortDescription: { text: RULES[id].reason },
              helpUri: `${tool.docsUrl}#${id}`,
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
          locations: [
            {
              ...(source !== undefined
                ? { physicalLocation: { artifactLocation: { uri: source.uri }, region: { startLine: declarationLine(source.text, f.address) } } }
                : {}),
              logicalLocations: [{ fullyQualifiedName: f.address, name: f.address, kind: "resource" }],
            },
          ],
          partialFingerprints: { "mgmtPolicy/v1": `${f.rule}:${f.address}` },
          ...(f.status === "waived" && f.waiver !== undefined
            ? { suppressions: [{ kind: "external", status: "accepted", justification: `${f.waiver.reason} (until ${f.waiver.expires})` }] }
            : {}),
        })),
      },
    ],
  };
}
