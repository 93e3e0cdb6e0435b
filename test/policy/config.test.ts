/** @tier unit */
/** mgmt-policy.json: read with its defaults, every problem named with its line, an unknown key above all. */
import { DEFAULT_CONFIG, PolicyConfigError, parsePolicyConfig } from "../../src/policy/config";
import { parseJsonWithLines } from "../../src/policy/json-lines";
import { RULE_IDS } from "../../src/policy/rules";

const problem = (text: string): { line: number; problem: string } => {
  try {
    parsePolicyConfig(text, "p.json");
  } catch (err) {
    if (err instanceof PolicyConfigError) return { line: err.line, problem: err.problem };
    throw err;
  }
  throw new Error("no problem found");
};

describe("mgmt-policy.json", () => {
  it("an empty object is every rule at its default", () => {
    expect(parsePolicyConfig("{}")).toEqual(DEFAULT_CONFIG);
    expect(Object.fromEntries(RULE_IDS.map((id) => [id, DEFAULT_CONFIG.rules[id].severity]))).toEqual({
      "token-expiry": "error",
      "token-scopes": "error",
      "token-renewal": "warning",
      "oauth-redirect-https": "error",
      "oauth-public": "warning",
      "ssh-key-strength": "error",
      "label-pattern": "error",
    });
    expect(DEFAULT_CONFIG.rules["token-expiry"].params.max_lifetime).toBe("2160h");
  });

  it("reads severities (long and short form), parameters and waivers", () => {
    const config = parsePolicyConfig(
      JSON.stringify(
        {
          $schema: "x",
          rules: {
            "token-expiry": { max_lifetime: "720h" },
            "token-scopes": { severity: "warning", read_only_areas: ["account"], allowed_areas: ["account", "events"] },
            "token-renewal": { severity: "error", min_renew_before: "168h" },
            "oauth-public": "off",
            "ssh-key-strength": { min_rsa_bits: 4096 },
            "label-pattern": { pattern: "^team-[a-z]+ " },
          },
          waivers: [{ rule: "oauth-public", address: "mgmt_oauth_client.cli", reason: "the CLI is a native app", expires: "2026-12-31" }],
        },
        null,
        2,
      ),
    );
    expect(config.rules["token-expiry"]).toEqual({ severity: "error", params: { max_lifetime: "720h", maxLifetimeMs: 720 * 3_600_000 } });
    expect(config.rules["token-scopes"]).toEqual({ severity: "warning", params: { read_only_areas: ["account"], allowed_areas: ["account", "events"] } });
    expect(config.rules["token-renewal"]).toEqual({ severity: "error", params: { min_renew_before: "168h", minRenewBeforeMs: 168 * 3_600_000 } });
    expect(config.rules["oauth-public"].severity).toBe("off");
    expect(config.rules["ssh-key-strength"].params).toEqual({ min_rsa_bits: 4096 });
    expect(config.rules["label-pattern"].params).toEqual({ pattern: "^team-[a-z]+ " });
    expect(config.waivers).toEqual([
      { rule: "oauth-public", address: "mgmt_oauth_client.cli", reason: "the CLI is a native app", expires: "2026-12-31", line: 30 },
    ]);
  });

  it("an unknown key is an error naming it and its line, wherever it is", () => {
    expect(problem('{\n  "rules": {},\n  "waiver": []\n}')).toEqual({
      line: 3,
      problem: 'unknown key "waiver" in the configuration; expected one of $schema, rules, waivers',
    });
    expect(problem('{\n  "rules": {\n    "token-expiry": {\n      "max_lifetme": "720h"\n    }\n  }\n}')).toEqual({
      line: 4,
      problem: 'unknown key "max_lifetme" in rules.token-expiry; expected one of severity, max_lifetime',
    });
    expect(problem('{"rules": {\n"token-expiration": "off"}}')).toMatchObject({
      line: 2,
      problem: expect.stringContaining('unknown key "token-expiration" in rules'),
    });
    expect(problem('{"waivers": [\n{"rule": "oauth-public", "address": "a", "reason": "r", "expires": "2026-01-01",\n "until": "x"}]}')).toMatchObject({
      line: 3,
      problem: expect.stringContaining('unknown key "until" in waivers[0]'),
    });
  });

  it("names bad values with their line", () => {
    const cases: [string, number, RegExp][] = [
      ['{"rules": {"oauth-public": "fatal"}}', 1, /rules\.oauth-public must be "error", "warning" or "off", not "fatal"/],
      ['{"rules": {\n"token-expiry": {"max_lifetime": "90d"}}}', 2, /rules\.token-expiry\.max_lifetime must be a duration .* got "90d"/],
      ['{"rules": {"token-scopes": {"read_only_areas": "account"}}}', 1, /read_only_areas must be an array/],
      ['{"rules": {"token-scopes": {"read_only_areas": ["Account"]}}}', 1, /"Account" is not a scope area/],
      ['{"rules": {"ssh-key-strength": {"min_rsa_bits": 512}}}', 1, /min_rsa_bits must be an integer of at least 1024/],
      ['{"rules": {"label-pattern": {"pattern": "("}}}', 1, /pattern is not a regular expression/],
      ['{"waivers": {}}', 1, /waivers must be an array, not an object/],
      ['{"waivers": [\n{"rule": "token-expiry", "address": "a", "reason": "r"}]}', 2, /waivers\[0\] needs "expires"/],
      [
        '{"waivers": [{"rule": "token-expiry", "address": "a", "reason": "r",\n"expires": "2026-02-30"}]}',
        2,
        /expires must be a day written YYYY-MM-DD, not "2026-02-30"/,
      ],
      [
        '{"waivers": [{"rule": "no-such", "address": "a", "reason": "r", "expires": "2026-02-03"}]}',
        1,
        /rule "no-such" is no rule; the rules are token-expiry/,
      ],
      ['{"waivers": [{"rule": "token-expiry", "address": "a", "reason": "  ", "expires": "2026-02-03"}]}', 1, /reason must be a non-empty string/],
      ['{"rules": {}, "rules": {}}', 1, /"rules" is given twice/],
      ["[]", 1, /the configuration must be an object, not an array/],
      ['{\n  "rules": {,\n}', 2, /not JSON: expected a key in double quotes, found ','/],
      ['{"rules": {}}\n\nx', 3, /not JSON: expected the end of the JSON/],
    ];
    for (const [text, line, re] of cases) {
      const p = problem(text);
      expect(p.line).toBe(line);
      expect(p.problem).toMatch(re);
    }
    // The message a CLI prints: file, line, problem.
    expect(() => parsePolicyConfig('{\n\n"x": 1}', "team/mgmt-policy.json")).toThrow('team/mgmt-policy.json:3: unknown key "x"');
  });

  it("the JSON reader agrees with JSON.parse on what it accepts", () => {
    const text = '{"a": [1, -2.5e3, true, false, null, "x\\"\\u00e9\\n"], "b": {}, "c": []}';
    const strip = (n: ReturnType<typeof parseJsonWithLines>): unknown =>
      n.kind === "object"
        ? Object.fromEntries(n.entries.map((e) => [e.key, strip(e.value)]))
        : n.kind === "array"
          ? n.items.map(strip)
          : n.kind === "null"
            ? null
            : n.value;
    expect(strip(parseJsonWithLines(text))).toEqual(JSON.parse(text));
    for (const bad of ['{"a" 1}', "[1,]", '"\u0001"', "01", "{'a': 1}", ""]) expect(() => parseJsonWithLines(bad)).toThrow();
  });
});
