/** @tier unit */
/** The check's JSON read back for `mgmt plan-report --policy`: the same comment as the check prints, and bad files refused. */
import { checkPolicy } from "../../src/policy/check";
import { parsePolicyConfig } from "../../src/policy/config";
import { policyJson } from "../../src/policy/json";
import { renderPolicyMarkdown } from "../../src/policy/markdown";
import { PolicyJsonError, parsePolicyJson, policyResultFromJson } from "../../src/policy/read-json";
import { UNKNOWN } from "../../src/policy/rules";
import { client, token } from "./subjects";

const config = parsePolicyConfig(
  JSON.stringify({
    waivers: [
      { rule: "token-scopes", address: "mgmt_token.admin", reason: "break-glass <b>token</b>", expires: "2026-03-31" },
      { rule: "token-expiry", address: "mgmt_token.ci", reason: "migrating to OIDC", expires: "2026-01-31" },
      { rule: "oauth-public", address: "mgmt_oauth_client.gone", reason: "removed last sprint", expires: "2026-12-31" },
    ],
  }),
);
const result = checkPolicy(
  [
    token({ scopes: "*" }, { address: "mgmt_token.admin" }),
    token({ expires_in: null }, { address: 'mgmt_token.ci["deploy"]' }),
    token({ renew_before: null }, { address: "mgmt_token.lazy" }),
    client({ public: true }, { address: "mgmt_oauth_client.cli" }),
    client({ redirect_uri: UNKNOWN }, { address: "mgmt_oauth_client.later" }),
  ],
  config,
  new Date("2026-03-01T00:00:00Z"),
);
const text = JSON.stringify(policyJson(result, config), null, 2);

describe("parsePolicyJson and policyResultFromJson", () => {
  it("render the comment the check itself prints, but for the waivers' lines (the JSON does not carry them)", () => {
    const fromJson = renderPolicyMarkdown(policyResultFromJson(parsePolicyJson(text)));
    expect(result.staleWaivers.map((w) => w.line)).toEqual([expect.any(Number)]);
    expect(fromJson).toBe(renderPolicyMarkdown(result).replace(/, line \d+\)/g, ")"));
    expect(fromJson).toMatch(/^## Policy\n\n\*\*1 violation at error severity\*\* 5 resource\(s\) checked/);
    expect(fromJson).toContain("waived until 2026-03-31: break-glass &lt;b&gt;token&lt;/b&gt;");
    expect(fromJson).not.toContain("<b>");
  });

  it.each([
    ["not JSON", "## Policy", /^not JSON: /],
    ["plan-report's own JSON", JSON.stringify({ format_version: 1, changes: [] }), /not the output of 'mgmt policy check --format json'/],
    ["another version", JSON.stringify({ ...JSON.parse(text), format_version: "2" }), /unsupported format_version "2": this reads format 1/],
    ["no summary", JSON.stringify({ ...JSON.parse(text), summary: undefined }), /passed or summary is missing/],
    ["an unknown rule", text.replace('"rule": "token-scopes"', '"rule": "<script>"'), /findings\[\d\] is not a finding/],
    ["a bad waiver", text.replace('"expires": "2026-12-31"', '"expires": 5'), /stale_waivers\[0\] is not a waiver/],
    [
      "a rule of an unknown severity",
      text.replace('"severity": "warning",\n      "reason"', '"severity": "loud",\n      "reason"'),
      /rules\[\d\] is not a rule/,
    ],
    ["no rules", JSON.stringify({ ...JSON.parse(text), rules: undefined }), /rules is not a list/],
  ])("refuse %s", (_name, input, message) => {
    expect(() => parsePolicyJson(input)).toThrow(PolicyJsonError);
    expect(() => parsePolicyJson(input)).toThrow(message);
  });
});
