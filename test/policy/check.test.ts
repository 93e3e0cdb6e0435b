/** @tier unit */
/** Severities, waivers that expire (on a fixed clock), stale waivers, and the three renderings of one result. */
import { checkPolicy, waiverExpired, type PolicyResult } from "../../src/policy/check";
import { parsePolicyConfig, type PolicyConfig } from "../../src/policy/config";
import { policyJson } from "../../src/policy/json";
import { messageMarkdown, renderPolicyMarkdown } from "../../src/policy/markdown";
import { declarationLine, policySarif } from "../../src/policy/sarif";
import { RULE_IDS, UNKNOWN } from "../../src/policy/rules";
import { client, token } from "./subjects";

const TOOL = { version: "0.2.0", docsUrl: "https://registry.example/docs/guides/policy" };
const config = (body: unknown): PolicyConfig => parsePolicyConfig(JSON.stringify(body, null, 2));
const day = (text: string) => new Date(`${text}Z`);

const SUBJECTS = [
  token({ scopes: "*" }, { address: "mgmt_token.admin" }),
  token({ expires_in: null }, { address: 'mgmt_token.ci["deploy"]' }),
  client({ public: true }, { address: "mgmt_oauth_client.cli" }),
  client({ redirect_uri: UNKNOWN }, { address: "mgmt_oauth_client.later" }),
];
const WAIVERS = {
  waivers: [
    { rule: "token-scopes", address: "mgmt_token.admin", reason: "break-glass token, INC-42", expires: "2026-03-31" },
    { rule: "token-expiry", address: "mgmt_token.ci", reason: "migrating to OIDC", expires: "2026-01-31" },
    { rule: "oauth-public", address: "mgmt_oauth_client.gone", reason: "removed last sprint", expires: "2026-12-31" },
    { rule: "oauth-redirect-https", address: "mgmt_oauth_client.later", reason: "decided at apply", expires: "2026-12-31" },
  ],
};

describe("checkPolicy", () => {
  it("without waivers: violations at their severity, unknowns apart", () => {
    const result = checkPolicy(SUBJECTS, config({}), day("2026-03-01T00:00:00"));
    expect(result.findings.map((f) => [f.address, f.rule, f.severity, f.status])).toEqual([
      ["mgmt_oauth_client.cli", "oauth-public", "warning", "violation"],
      ["mgmt_oauth_client.later", "oauth-redirect-https", "error", "not_checkable"],
      ["mgmt_token.admin", "token-scopes", "error", "violation"],
      ['mgmt_token.ci["deploy"]', "token-expiry", "error", "violation"],
    ]);
    expect(result.checked).toBe(4);
    expect(policyJson(result, config({})).passed).toBe(false);
  });

  it("a waiver in force waives; one past its day counts again and says so; one matching nothing is stale", () => {
    const c = config(WAIVERS);
    // 2026-03-01: both waivers of failing rules are checked against the clock.
    const result = checkPolicy(SUBJECTS, c, day("2026-03-01T00:00:00"));
    const byAddress = Object.fromEntries(result.findings.map((f) => [f.address, f]));
    expect(byAddress["mgmt_token.admin"]).toMatchObject({ status: "waived", waiver: { reason: "break-glass token, INC-42" } });
    // A waiver for the resource covers each of its instances.
    expect(byAddress['mgmt_token.ci["deploy"]']).toMatchObject({
      status: "waiver_expired",
      message: expect.stringMatching(/never expires.*\(its waiver expired on 2026-01-31\)$/),
    });
    expect(result.staleWaivers.map((w) => w.address)).toEqual(["mgmt_oauth_client.gone"]);
    expect(policyJson(result, c)).toMatchObject({
      passed: false,
      summary: { checked: 4, errors: 1, warnings: 1, waived: 1, waivers_expired: 1, not_checkable: 1, stale_waivers: 1 },
    });
  });

  it("a waiver holds through its whole day in UTC", () => {
    const w = config(WAIVERS).waivers[0]!;
    expect(waiverExpired(w, day("2026-03-31T23:59:59"))).toBe(false);
    expect(waiverExpired(w, day("2026-04-01T00:00:00"))).toBe(true);
    const admin = (now: string) => checkPolicy([SUBJECTS[0]!], config(WAIVERS), day(now)).findings[0]!.status;
    expect(admin("2026-03-31T23:59:59")).toBe("waived");
    expect(admin("2026-04-01T00:00:00")).toBe("waiver_expired");
  });

  it("passes when only warnings and waived violations remain; off rules say nothing", () => {
    const c = config({
      rules: { "token-expiry": "warning", "oauth-redirect-https": "off" },
      waivers: [WAIVERS.waivers[0]],
    });
    const result = checkPolicy(SUBJECTS, c, day("2026-03-01T00:00:00"));
    expect(result.findings.map((f) => [f.rule, f.severity, f.status])).toEqual([
      ["oauth-public", "warning", "violation"],
      ["token-scopes", "error", "waived"],
      ["token-expiry", "warning", "violation"],
    ]);
    expect(policyJson(result, c).passed).toBe(true);
  });

  it("a waiver may name an alias (the resource address of a construct checked at synth)", () => {
    const s = token({ scopes: "*" }, { address: "stack/admin", aliases: ["mgmt_token.admin"] });
    expect(checkPolicy([s], config(WAIVERS), day("2026-03-01T00:00:00")).findings[0]!.status).toBe("waived");
  });
});

describe("renderings", () => {
  const c = config(WAIVERS);
  let result: PolicyResult;
  beforeAll(() => {
    result = checkPolicy(
      [...SUBJECTS, token({ label: "secret-label", scopes: "*" }, { address: "mgmt_token.hidden", sensitive: ["label", "scopes"] })],
      c,
      day("2026-03-01T00:00:00"),
    );
  });

  it("markdown: the verdict, then errors, warnings, waived, not checkable, stale", () => {
    const md = renderPolicyMarkdown(result);
    expect(md).toMatch(
      /^## Policy\n\n\*\*2 violations at error severity\*\* 5 resource\(s\) checked · 1 warning\(s\) · 1 waived · 1 not checkable at plan · 1 stale waiver\(s\)\n/,
    );
    const order = ["Errors (2)", "Warnings (1)", "Waived (1)", "Not checkable at plan (1)", "Stale waivers"].map((t) => md.indexOf(t));
    expect(order.every((i, n) => i > 0 && (n === 0 || i > order[n - 1]!))).toBe(true);
    expect(md).toContain(
      "- `mgmt_token.admin` **token-scopes**: `scopes` is `*` (every area, read and write): name the areas the token needs — waived until 2026-03-31: break-glass token, INC-42",
    );
    expect(md).toContain("- `mgmt_oauth_client.gone` **oauth-public** (expires 2026-12-31, line 15): removed last sprint");
    expect(md).not.toContain("secret-label");
  });

  it("markdown: a value from the pull request never becomes markup", () => {
    const md = renderPolicyMarkdown(
      checkPolicy(
        [client({ label: '<img src=x onerror="alert(1)">' })],
        config({ rules: { "label-pattern": { pattern: "^team-" } } }),
        day("2026-03-01T00:00:00"),
      ),
    );
    expect(md).toContain('`label` "&lt;img src=x onerror=\\"alert(1)\\"&gt;" does not match');
    expect(md).not.toContain("<img");
    expect(messageMarkdown('"`<b>" & <c>')).toBe('"`&lt;b&gt;" &amp; &lt;c&gt;');
  });

  it("json: counts, rules with their severity, findings with their waiver", () => {
    const json = policyJson(result, c);
    expect(json.rules.map((r) => r.id)).toEqual([...RULE_IDS]);
    expect(json.findings.find((f) => f.address === "mgmt_token.admin")).toEqual({
      rule: "token-scopes",
      severity: "error",
      status: "waived",
      address: "mgmt_token.admin",
      type: "mgmt_token",
      message: "`scopes` is `*` (every area, read and write): name the areas the token needs",
      waiver: { rule: "token-scopes", address: "mgmt_token.admin", reason: "break-glass token, INC-42", expires: "2026-03-31" },
    });
    expect(JSON.stringify(json)).not.toContain("secret-label");
  });

  it("sarif: the 2.1.0 essentials, a rule per id, a result per finding at the resource's address", () => {
    const sarif = policySarif(result, c, TOOL) as {
      $schema: string;
      version: string;
      runs: {
        tool: {
          driver: { name: string; rules: { id: string; shortDescription: { text: string }; helpUri: string; defaultConfiguration: { level: string } }[] };
        };
        invocations: { toolConfigurationNotifications: { message: { text: string } }[] }[];
        results: {
          ruleId: string;
          ruleIndex: number;
          level: string;
          message: { text: string };
          locations: { logicalLocations: { fullyQualifiedName: string }[] }[];
          suppressions?: { kind: string; status: string }[];
        }[];
      }[];
    };
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.$schema).toMatch(/sarif-2\.1\.0/);
    expect(sarif.runs).toHaveLength(1);
    const [run] = sarif.runs;
    expect(run!.tool.driver.rules.map((r) => r.id)).toEqual([...RULE_IDS]);
    for (const r of run!.tool.driver.rules) expect(r.shortDescription.text.length).toBeGreaterThan(10);
    expect(run!.tool.driver.rules[1]!.helpUri).toBe("https://registry.example/docs/guides/policy#token-scopes");
    expect(run!.results).toHaveLength(result.findings.length);
    for (const r of run!.results) {
      expect(run!.tool.driver.rules[r.ruleIndex]!.id).toBe(r.ruleId);
      expect(["error", "warning", "note"]).toContain(r.level);
      expect(r.message.text.length).toBeGreaterThan(0);
      expect(r.locations[0]!.logicalLocations[0]!.fullyQualifiedName).toMatch(/^mgmt_/);
    }
    const admin = run!.results.find((r) => r.locations[0]!.logicalLocations[0]!.fullyQualifiedName === "mgmt_token.admin")!;
    expect(admin.suppressions).toEqual([expect.objectContaining({ kind: "external", status: "accepted" })]);
    expect(run!.results.find((r) => r.ruleId === "oauth-redirect-https")!.level).toBe("note");
    expect(run!.invocations[0]!.toolConfigurationNotifications.map((n) => n.message.text)).toEqual([
      expect.stringContaining("stale waiver: oauth-public on mgmt_oauth_client.gone"),
    ]);
    expect(JSON.stringify(sarif)).not.toContain("secret-label");
  });

  it("sarif with --source: each result also on the line declaring its resource, in HCL or in JSON", () => {
    const hcl = 'provider "mgmt" {}\n\nresource "mgmt_token" "admin" {\n  scopes = "*"\n}\n\nresource "mgmt_token" "ci" {\n  count = 1\n}\n';
    expect(declarationLine(hcl, "mgmt_token.admin")).toBe(3);
    expect(declarationLine(hcl, 'mgmt_token.ci["deploy"]')).toBe(7);
    const json = JSON.stringify({ resource: { mgmt_ssh_key: { admin: {} }, mgmt_token: { other: {}, admin: { scopes: "*" } } } }, null, 2);
    // After the "mgmt_token" line, not the SSH key of the same name before it.
    expect(declarationLine(json, "mgmt_token.admin")).toBe(8);
    expect(declarationLine(json, "mgmt_token.nowhere")).toBe(1);
    const sarif = policySarif(result, c, TOOL, { uri: "stacks/main.tf", text: hcl }) as {
      runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[] }[];
    };
    const located = sarif.runs[0]!.results.map((r) => r.locations[0]!.physicalLocation);
    expect(located).toContainEqual({ artifactLocation: { uri: "stacks/main.tf" }, region: { startLine: 3 } });
    expect(located).toContainEqual({ artifactLocation: { uri: "stacks/main.tf" }, region: { startLine: 7 } });
  });
});
